# The Vulkan fusion and attention shaders (kernels/fused.inc), each as is and with
# DenormPreserve (_dp); included after shaders.cmake (which defines qgate_vk_shader).
# qgate_vk_shader_pair(source, tag, variant, defines, storage buffers, push-constant bytes)
list(APPEND vk_deps ${vk_src}/fused_common.glsl)
qgate_vk_shader_pair(fused_add_rmsnorm.comp f32 fused_add_rmsnorm "" 5 24)
qgate_vk_shader_pair(fused_qk_norm_rope.comp f32 fused_qk_norm_rope "" 10 44)
qgate_vk_shader_pair(fused_moe_route.comp f32 fused_moe_route "" 3 20)
qgate_vk_shader_pair(fused_silu_mul.comp f32 fused_silu_mul "" 3 20)
qgate_vk_shader_pair(fused_attention.comp eager fused_attention "-DEAGER" 5 32)
qgate_vk_shader_pair(fused_attention.comp pf32 fused_attention "-DP_F32" 5 32)
qgate_vk_shader_pair(fused_attention.comp pf16 fused_attention "-DP_F16" 5 32)
qgate_vk_shader_pair(fused_attention.comp pbf16 fused_attention "-DP_BF16" 5 32)
# Planted (mutant build only): flash attention without the rescale of earlier tiles.
qgate_vk_shader(fused_attention.comp pf32 mutant_rescale_dropped_fused_attention "-DP_F32;-DMUTANT_rescale_dropped" 5 32)
qgate_vk_shader(fused_attention.comp pf32_dp mutant_rescale_dropped_fused_attention "-DP_F32;-DMUTANT_rescale_dropped;-DQGATE_DENORM_PRESERVE" 5 32)
# Planted: P rounded to fp8 e4m3 where bf16 is declared; K and V appended one slot off.
qgate_vk_shader(fused_attention.comp pbf16 mutant_p_fp8_fused_attention "-DP_BF16;-DMUTANT_p_fp8" 5 32)
qgate_vk_shader(fused_attention.comp pbf16_dp mutant_p_fp8_fused_attention "-DP_BF16;-DMUTANT_p_fp8;-DQGATE_DENORM_PRESERVE" 5 32)
qgate_vk_shader(fused_qk_norm_rope.comp f32 mutant_kv_slot_off_fused_qk_norm_rope "-DMUTANT_kv_slot_off" 10 44)
qgate_vk_shader(fused_qk_norm_rope.comp f32_dp mutant_kv_slot_off_fused_qk_norm_rope "-DMUTANT_kv_slot_off;-DQGATE_DENORM_PRESERVE" 10 44)
set(QGATE_VK_SHADER_SOURCES ${vk_shader_sources})
