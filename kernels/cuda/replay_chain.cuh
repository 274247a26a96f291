// Device kernels of the replay probe's decode-step chain (replay_chain.cpp): RoPE with a
// KV-cache append, and a sum over the cache rows 0..pos. The position is read from device
// memory, so a replayed graph sees each step's position; the planted mutant
// (mutants.cu) takes it by value instead, which a graph bakes at capture.
#pragma once
#include <cstdint>

#include "backends/cuda/vendor.cuh"

namespace qgate::cuk {

// NeoX pairing (i with i + d/2); one thread per pair.
template <bool PosByValue>
__global__ void rope_kv_kernel(const float* __restrict__ x, const uint32_t* __restrict__ pos_dev, uint32_t pos_value,
                               float* __restrict__ xr, float* __restrict__ kv, uint32_t d) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, h = d / 2;
  if (i >= h) return;
  const uint32_t p = PosByValue ? pos_value : pos_dev[0];
  const float theta = float(p) * exp2f(-log2f(10000.0f) * 2.0f * float(i) / float(d));
  const float c = cosf(theta), s = sinf(theta), a = x[i], b = x[i + h];
  const float ra = a * c - b * s, rb = a * s + b * c;
  xr[i] = ra;
  xr[i + h] = rb;
  kv[size_t(p) * d + i] = ra;
  kv[size_t(p) * d + i + h] = rb;
}

template <bool PosByValue>
void launch_rope_kv(const float* x, const uint32_t* pos_dev, uint32_t pos_value, float* xr, float* kv, uint32_t d,
                    void* stream) {
  rope_kv_kernel<PosByValue><<<(d / 2 + 63) / 64, 64, 0, static_cast<gpuStream_t>(stream)>>>(x, pos_dev, pos_value, xr,
                                                                                             kv, d);
}

}  // namespace qgate::cuk
