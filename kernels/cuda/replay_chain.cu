// The replay probe's chain kernels (replay_chain.cuh) in their production form.
#include "kernels/cuda/launchers.hpp"
#include "kernels/cuda/replay_chain.cuh"

namespace qgate::cuk {
namespace {

// A stand-in for attention over the cache: s[i] = sum over rows 0..pos of kv[row][i].
__global__ void kv_sum_kernel(const float* __restrict__ kv, const uint32_t* __restrict__ pos, float* __restrict__ s,
                              uint32_t d) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= d) return;
  float acc = 0.f;
  for (uint32_t t = 0; t <= pos[0]; ++t) acc += kv[size_t(t) * d + i];
  s[i] = acc;
}

}  // namespace

void rope_kv(const float* x, const uint32_t* pos, float* xr, float* kv, uint32_t d, void* stream) {
  launch_rope_kv<false>(x, pos, 0, xr, kv, d, stream);
}

void kv_sum(const float* kv, const uint32_t* pos, float* s, uint32_t d, void* stream) {
  kv_sum_kernel<<<(d + 63) / 64, 64, 0, static_cast<gpuStream_t>(stream)>>>(kv, pos, s, d);
}

}  // namespace qgate::cuk
