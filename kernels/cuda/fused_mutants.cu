// The planted CUDA fusion/attention defects (kernels/mutants.inc: cuda_flash_*), compiled
// into the mutant build of the kernels only (cuda.cmake): the production template with the
// defect switched on.
#include "kernels/cuda/fused_attention.cuh"

namespace qgate::cuk {

// Flash attention without the rescale of earlier tiles by expf(m_old - m_new).
void mutant_fused_attn_flash_rescale_dropped(const float* q, const float* k, const float* v, float* o, int64_t tokens,
                                             int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len,
                                             int64_t kv_cap, float scale, void* stream) {
  fused::launch_attn_flash<AttnP::f32, false>(q, k, v, o, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale, stream);
}

}  // namespace qgate::cuk
