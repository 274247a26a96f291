// The one vendor header of the CUDA backend (as ggml's vendors/cuda.h / hip.h): every
// CUDA-only name the runtime and the kernels use is spelled here, once, as a gpu* / qg_*
// name, so HIP compiles the same sources by switching this header (QGATE_HIP below).
// Outside this file: no cuda* API, no CUDA-only intrinsic, and no warp width in logic
// (kernels reduce through shared memory, for any block size; qg_warp_size() is for tuning).
#pragma once

#if defined(QGATE_HIP) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuErrorNoDevice hipErrorNoDevice
#define gpuErrorInsufficientDriver hipErrorInsufficientDriver
#define gpuGetErrorString hipGetErrorString
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuSetDevice hipSetDevice
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStream_t hipStream_t
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamBeginCapture hipStreamBeginCapture
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define gpuGraph_t hipGraph_t
#define gpuGraphExec_t hipGraphExec_t
#define gpuGraphInstantiate(exec, graph) hipGraphInstantiate(exec, graph, nullptr, nullptr, 0)
#define gpuGraphLaunch hipGraphLaunch
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExecDestroy hipGraphExecDestroy
using qg_half = __half;
using qg_bf16 = __hip_bfloat16;
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuErrorNoDevice cudaErrorNoDevice
#define gpuErrorInsufficientDriver cudaErrorInsufficientDriver
#define gpuGetErrorString cudaGetErrorString
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuSetDevice cudaSetDevice
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStream_t cudaStream_t
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamBeginCapture cudaStreamBeginCapture
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define gpuGraph_t cudaGraph_t
#define gpuGraphExec_t cudaGraphExec_t
#define gpuGraphInstantiate(exec, graph) cudaGraphInstantiate(exec, graph, 0)
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExecDestroy cudaGraphExecDestroy
using qg_half = __half;
using qg_bf16 = __nv_bfloat16;
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
// ---- device intrinsics, each with its IEEE meaning stated (no fast math anywhere) ----

// sum of the four signed byte products of a and b, plus c (exact integer arithmetic).
__device__ __forceinline__ int qg_dp4a(int a, int b, int c) {
#if defined(QGATE_HIP) || defined(__HIP_PLATFORM_AMD__)
  return __builtin_amdgcn_sdot4(a, b, c, false);
#else
  return __dp4a(a, b, c);
#endif
}
// double -> float rounded toward zero (the first step of a round-to-odd conversion).
__device__ __forceinline__ float qg_double_to_float_rz(double v) { return __double2float_rz(v); }
// float -> f16 / bf16 bits, round to nearest even (IEEE).
__device__ __forceinline__ unsigned short qg_float_to_f16_bits(float v) {
  return __half_as_ushort(__float2half_rn(v));
}
__device__ __forceinline__ unsigned short qg_float_to_bf16_bits(float v) {
#if defined(QGATE_HIP) || defined(__HIP_PLATFORM_AMD__)
  return __bfloat16_as_ushort(__float2bfloat16(v));
#else
  return __bfloat16_as_ushort(__float2bfloat16_rn(v));
#endif
}
// Width of the hardware SIMD group (32 on NVIDIA, 32 or 64 on AMD). Never assumed by
// correctness-bearing logic here.
__device__ __forceinline__ int qg_warp_size() { return warpSize; }
#endif
