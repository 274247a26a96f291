// Mat-vec kernels of the iq formats of kernels.inc.
#define QGATE_CUDA_IF_iq(...) __VA_ARGS__
#include "kernels/cuda/family.cuh"
#include "kernels/cuda/matvec.cuh"

namespace qgate::cuk {
#include "kernels/cuda/kernels.inc"
}  // namespace qgate::cuk
