// Activation quantization on the device, bit-exact to the oracle's emulation
// (oracles/ops/quantize_act.cpp), in IEEE f32 arithmetic: this file is compiled without
// fast math (no flush to zero, IEEE division), so every operation below is the correctly
// rounded f32 operation the oracle names.
//   q8_1 per 32:  d = f32(amax / 127); q = roundf(f32(x / d)) (half away from zero);
//                 d stored as fp16 (RNE), s = fp16(f32(sum(q) * d))
//   q8_K per 256: max = the first element of largest |x|; iscale = f32(-127 / max);
//                 q = min(127, rint(f32(iscale * x))) (ties to even); d = f32(1 / iscale);
//                 bsums = sums of q per 16; an all-zero (or unrepresentable) block is all zeros
#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {
namespace {

QG_DEV void put16(uint8_t* p, uint32_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
QG_DEV void put32(uint8_t* p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }

// One thread per block: the reference's sequential order (amax, then codes) is kept.
__global__ void q8_1_kernel(const float* __restrict__ x, int64_t blocks, uint8_t* __restrict__ out) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride) {
    const float* xb = x + b * 32;
    uint8_t* o = out + b * 36;
    float amax = 0.f;
    for (int i = 0; i < 32; ++i) amax = fmaxf(amax, fabsf(xb[i]));
    const float d = amax / 127.0f;
    int sum = 0;
    for (int i = 0; i < 32; ++i) {
      const int q = d != 0.f ? int(roundf(xb[i] / d)) : 0;
      o[4 + i] = uint8_t(int8_t(q));
      sum += q;
    }
    // The header as one 32-bit store (o is 4-byte aligned: 36-byte blocks). Byte stores of
    // the f16 conversion results wrote a wrong low byte on the H200 (CUDA 13.0; d and s
    // both), which the quantizer test caught; a word store does not.
    const uint32_t hd = qg_float_to_f16_bits(d), hs = qg_float_to_f16_bits(float(sum) * d);
    *reinterpret_cast<uint32_t*>(o) = hd | (hs << 16);
  }
}

__global__ void q8_K_kernel(const float* __restrict__ x, int64_t blocks, uint8_t* __restrict__ out) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += stride) {
    const float* xb = x + b * 256;
    uint8_t* o = out + b * block::q8_K::bytes;
    float amax = 0.f, max = 0.f;
    for (int i = 0; i < 256; ++i) {
      const float ax = fabsf(xb[i]);
      if (ax > amax) {
        amax = ax;
        max = xb[i];
      }
    }
    const float iscale = amax != 0.f ? -127.0f / max : 0.f;
    if (amax == 0.f || !isfinite(iscale)) {  // the oracle refuses a non-finite iscale
      for (int i = 0; i < block::q8_K::bytes; ++i) o[i] = 0;
      continue;
    }
    put32(o, __float_as_uint(1.0f / iscale));
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) {
        const int e = 16 * j + i;
        const int q = min(127, int(rintf(iscale * xb[e])));
        o[4 + e] = uint8_t(int8_t(q));
        sum += q;
      }
      put16(o + 260 + 2 * j, uint32_t(uint16_t(int16_t(sum))));
    }
  }
}

unsigned grid_for(int64_t items, int threads) {
  const int64_t g = (items + threads - 1) / threads;
  return unsigned(g < (int64_t(1) << 20) ? g : (int64_t(1) << 20));
}

}  // namespace

void quantize_q8_1(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream) {
  const int64_t blocks = m * (k / 32);
  if (blocks > 0) q8_1_kernel<<<grid_for(blocks, 128), 128, 0, static_cast<gpuStream_t>(stream)>>>(x, blocks, out);
}

void quantize_q8_K(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream) {
  const int64_t blocks = m * (k / 256);
  if (blocks > 0) q8_K_kernel<<<grid_for(blocks, 128), 128, 0, static_cast<gpuStream_t>(stream)>>>(x, blocks, out);
}

}  // namespace qgate::cuk
