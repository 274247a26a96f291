// GEMM kernels of the gptq formats of kernels.inc.
#define QGATE_CUDA_IF_gptq(...) __VA_ARGS__
#include "kernels/cuda/gemm_instances.cuh"
