// GEMM kernels of the kquant formats of kernels.inc.
#define QGATE_CUDA_IF_kquant(...) __VA_ARGS__
#include "kernels/cuda/gemm_instances.cuh"
