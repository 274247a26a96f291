# The decode-step chain of the replay probe (rope_kv -> matvec -> kv_sum), not per format.
# Included after shaders.cmake (which defines qgate_vk_shader).
qgate_vk_shader(rope_kv.comp chain rope_kv "" 4 8)
qgate_vk_shader(kv_sum.comp chain kv_sum "" 3 4)
# Planted: the position passed by value as a push constant, baked when recorded.
qgate_vk_shader(rope_kv.comp chain mutant_pos_by_value_rope_kv "-DMUTANT_pos_by_value" 4 8)
set(QGATE_VK_SHADER_SOURCES ${vk_shader_sources})
