// GEMM kernels of the legacy formats of kernels.inc.
#define QGATE_CUDA_IF_legacy(...) __VA_ARGS__
#include "kernels/cuda/gemm_instances.cuh"
