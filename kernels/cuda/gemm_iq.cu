// GEMM kernels of the iq formats of kernels.inc.
#define QGATE_CUDA_IF_iq(...) __VA_ARGS__
#include "kernels/cuda/gemm_instances.cuh"
