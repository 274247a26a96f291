// Shared by the CUDA fusion and attention kernels (kernels/cuda/fused_*.cu). Declared
// arithmetic (oracles/ops/fused_math.hpp cuda_math, docs/FUSIONS.md "CUDA"): +, -, * and
// the division correctly rounded (no fast math: --prec-div=true --prec-sqrt=true
// --ftz=false, cuda.cmake), sqrtf correctly rounded, expf 2 ULP, sinf/cosf 2 ULP (the CUDA
// Programming Guide's table of single-precision functions, full range). A multiply-add
// may be contracted into an fma (nvcc --fmad=true, clang's HIP default): one rounding
// where the bounds count two, never more. Reductions go through shared memory with
// __syncthreads only, for any hardware wave width.
#pragma once
#include "kernels/cuda/fused_launchers.hpp"
#include "backends/cuda/vendor.cuh"

namespace qgate::cuk::fused {

__device__ __forceinline__ float neg_inf() { return __uint_as_float(0xFF800000u); }

// part[0 .. kThreads) combined by op into part[0] by a fixed tree (log2 kThreads levels), the
// same order on every run; every thread gets the result. All kThreads threads of the block call it.
template <int kThreads, class Op>
__device__ __forceinline__ float block_reduce(float* part, float v, Op op) {
  const int tid = int(threadIdx.x);
  part[tid] = v;
  __syncthreads();
#pragma unroll
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (tid < s) part[tid] = op(part[tid], part[tid + s]);
    __syncthreads();
  }
  const float r = part[0];
  __syncthreads();  // part may be reused at once
  return r;
}

// The sum of v over the block, in block_reduce's fixed order.
template <int kThreads>
__device__ __forceinline__ float block_sum(float* part, float v) {
  return block_reduce<kThreads>(part, v, [](float a, float b) { return a + b; });
}

// The largest of v over the block (exact: max rounds nothing).
template <int kThreads>
__device__ __forceinline__ float block_max(float* part, float v) {
  return block_reduce<kThreads>(part, v, [](float a, float b) { return fmaxf(a, b); });
}

// f32 -> f16 -> f32, round to nearest even, in integer arithmetic: Inf from 65520 on,
// f16 subnormals kept (quantum 2^-24).
__device__ __forceinline__ float round_to_f16(float f) {
  const unsigned x = __float_as_uint(f);
  const unsigned sign = x & 0x80000000u;
  unsigned a = x & 0x7FFFFFFFu;
  if (a >= 0x477FF000u) return __uint_as_float(sign | 0x7F800000u);
  if (a < 0x38800000u) {  // below 2^-14: a multiple of 2^-24, rint(|f| 2^24) exactly
    const float q = rintf(__uint_as_float(a) * 16777216.0f);
    return __uint_as_float(sign | __float_as_uint(q * (1.0f / 16777216.0f)));
  }
  a += 0x00000FFFu + ((a >> 13) & 1u);
  return __uint_as_float(sign | (a & 0xFFFFE000u));
}
// f32 -> bf16 -> f32, round to nearest even (the top 16 bits).
__device__ __forceinline__ float round_to_bf16(float f) {
  return __uint_as_float(static_cast<unsigned>(qg_float_to_bf16_bits(f)) << 16);
}

}  // namespace qgate::cuk::fused
