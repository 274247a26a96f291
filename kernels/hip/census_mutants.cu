// The census mutant and its twin, compiled for the census only (never
// linked, never launched): the same staging loop, which copies a tile of a global array into
// shared memory before a reduction over it, written two ways.
//  stage_predicated: a bounds predicate on each load (`if (i < n) s[j] = g[i]`). Each load
//    sits in its own exec-masked region with its LDS store, so the compiler waits for ALL
//    outstanding loads before the store and only then issues the next load: on RDNA4 every
//    load of the loop is serialised behind a full s_wait_loadcnt 0. The ISA census must
//    flag it (full_waits over its budget of 0).
//  stage_clamped: the twin with a clamped index (`s[j] = g[min(i, n - 1)]`; the reduction
//    ignores the clamped duplicates). Every load issues back to back, one wait after the
//    last: the census must pass it.
// Both through the one vendor header, like every CUDA-dialect kernel. n >= 1.
#include "backends/cuda/vendor.cuh"

namespace qgate::census_mutants {

constexpr int kThreads = 256;
constexpr int kPerThread = 8;

template <bool Clamp>
__device__ __forceinline__ void stage_and_sum(const float* __restrict__ g, int n, float* __restrict__ out) {
  __shared__ float s[kThreads * kPerThread];
  const int base = int(blockIdx.x) * kThreads * kPerThread;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int i = base + j * kThreads + int(threadIdx.x);
    if constexpr (Clamp) {
      s[j * kThreads + threadIdx.x] = g[i < n ? i : n - 1];
    } else {
      if (i < n) s[j * kThreads + threadIdx.x] = g[i];
    }
  }
  __syncthreads();
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int e = int(threadIdx.x) * kPerThread + j;
    if (base + e < n) acc += s[e];
  }
  out[int(blockIdx.x) * kThreads + int(threadIdx.x)] = acc;
}

__global__ void __launch_bounds__(kThreads) stage_predicated(const float* __restrict__ g, int n, float* __restrict__ out) {
  stage_and_sum<false>(g, n, out);
}

__global__ void __launch_bounds__(kThreads) stage_clamped(const float* __restrict__ g, int n, float* __restrict__ out) {
  stage_and_sum<true>(g, n, out);
}

}  // namespace qgate::census_mutants
