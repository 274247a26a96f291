// The GEMM entry points of one family's formats (kernels.inc QGATE_CUDA_GEMM lines): a
// gemm_<family>.cu defines QGATE_CUDA_IF_<family>(...) as __VA_ARGS__, then includes this.
#pragma once
#include "kernels/cuda/family.cuh"
#include "kernels/cuda/gemm.cuh"

#define QGATE_CUDA_GEMM(fmt, act, family) QGATE_CUDA_IF_##family(                                  \
  void gemm_##fmt(const GemmArgs& a, void* stream) {                                               \
    launch_gemm<QGATE_CUDA_GEMM_WEIGHTS_##family(fmt), kGemmAct_##act, kGemmMutNone>(a, stream);   \
  })
#define QGATE_CUDA_GEMM_WEIGHTS_legacy(fmt) BlockWeights<Fmt_##fmt>
#define QGATE_CUDA_GEMM_WEIGHTS_kquant(fmt) BlockWeights<Fmt_##fmt>
#define QGATE_CUDA_GEMM_WEIGHTS_iq(fmt) BlockWeights<Fmt_##fmt>
#define QGATE_CUDA_GEMM_WEIGHTS_gptq(fmt) GptqWeights

namespace qgate::cuk {
#include "kernels/cuda/kernels.inc"
}  // namespace qgate::cuk
