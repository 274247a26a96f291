// Mat-vec kernels of ggml's nvfp4, q1_0 and q2_0 (family lowbit) of kernels.inc.
#define QGATE_CUDA_IF_lowbit(...) __VA_ARGS__
#include "kernels/cuda/family.cuh"
#include "kernels/cuda/matvec.cuh"

namespace qgate::cuk {
#include "kernels/cuda/kernels.inc"
}  // namespace qgate::cuk
