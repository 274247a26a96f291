// The indexed-MoE entry points of kernels.inc (QGATE_CUDA_MOE lines); the templates and
// what they do are in moe.cuh.
#include "kernels/cuda/moe.cuh"

#undef QGATE_CUDA_DEQUANT_FORMAT
#undef QGATE_CUDA_FORMAT
namespace qgate::cuk {
#define QGATE_CUDA_MOE(fmt, act)                                                                                      \
  void moe_matvec_##fmt(const uint8_t* w, const uint8_t* xq, const int32_t* ids, float* y, int64_t n, int64_t k,      \
                        int m, int top_k, int experts, const IqTables& t, void* stream) {                            \
    launch_moe_matvec<Fmt_##fmt, kAct_##act, kMoeMutNone>(w, xq, ids, y, n, k, m, top_k, experts, t, stream);       \
  }                                                                                                                   \
  void moe_gemm_##fmt(const GemmArgs& a, int experts, const int32_t* ids, int32_t* list, int32_t* count,             \
                      void* stream) {                                                                                 \
    launch_moe_gemm<Fmt_##fmt, kAct_##act>(a, experts, ids, list, count, stream);                                     \
  }
#include "kernels/cuda/kernels.inc"

}  // namespace qgate::cuk
