// The planted CUDA fusion/attention defects (kernels/mutants.inc: cuda_flash_*,
// cuda_kv_slot_off), compiled into the mutant build of the kernels only (cuda.cmake): the
// production templates with the defect switched on.
#include "kernels/cuda/fused_attention.cuh"
#include "kernels/cuda/fused_qk_norm_rope.cuh"

namespace qgate::cuk {

// Flash attention without the rescale of earlier tiles by expf(m_old - m_new).
void mutant_fused_attn_flash_rescale_dropped(const float* q, const float* k, const float* v, float* o, int64_t tokens,
                                             int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len,
                                             int64_t kv_cap, float scale, void* stream) {
  fused::launch_attn_flash<AttnP::f32, fused::FlashDefect::rescale_dropped>(q, k, v, o, tokens, n_head, n_head_kv, d,
                                                                            kv_len, kv_cap, scale, stream);
}

// Flash attention declaring P in bf16 that rounds P to fp8 e4m3.
void mutant_fused_attn_flash_p_fp8(const float* q, const float* k, const float* v, float* o, int64_t tokens,
                                   int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap,
                                   float scale, void* stream) {
  fused::launch_attn_flash<AttnP::bf16, fused::FlashDefect::p_fp8>(q, k, v, o, tokens, n_head, n_head_kv, d, kv_len,
                                                                   kv_cap, scale, stream);
}

// q/k-norm + RoPE appending K and V one cache slot past the position.
void mutant_fused_qk_norm_rope_slot_off(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                                        const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache,
                                        int64_t tokens, int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap,
                                        bool neox, float eps, void* stream) {
  fused::launch_qk_norm_rope<true>(q, k, v, wq, wk, pos, freq, oq, k_cache, v_cache, tokens, n_head, n_head_kv, d, kv_cap,
                                   neox, eps, stream);
}

}  // namespace qgate::cuk
