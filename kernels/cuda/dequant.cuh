// Dequantization to f32 / f16 / bf16, correctly rounded: each element is formed EXACTLY
// as a double (dsub * code - msub, or the fp8 product: at most 31 significant bits), then
// rounded once. f16 / bf16 go through round-to-odd f32 (truncate, set the last bit if
// inexact), which has >= 2 more bits than either target at every magnitude, so the final
// round-to-nearest-even is the correct rounding of the exact value (no double rounding).
#pragma once
#include <algorithm>

#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {

template <int Out>  // 0 f32, 1 f16, 2 bf16
QG_DEV void store_rounded(void* out, int64_t e, double v) {
  if constexpr (Out == 0) {
    static_cast<float*>(out)[e] = __double2float_rn(v);
  } else {
    uint32_t u = __float_as_uint(qg_double_to_float_rz(v));
    if (double(__uint_as_float(u)) != v) u |= 1u;  // round to odd
    const float odd = __uint_as_float(u);
    static_cast<uint16_t*>(out)[e] = Out == 1 ? qg_float_to_f16_bits(odd) : qg_float_to_bf16_bits(odd);
  }
}

template <class F>
QG_DEV double element_value(const uint8_t* blk, int i, const IqTables& t) {
  if constexpr (F::FLOAT) {
    return F::value(blk, i);
  } else {
    const int j = i / F::SUB;
    return F::dsub(blk, j) * double(F::code(blk, i, t)) - F::msub(blk, j);  // exact in double
  }
}

template <class F, int Out>
__global__ void dequant_kernel(const uint8_t* __restrict__ w, int64_t total, void* __restrict__ out, IqTables t) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride)
    store_rounded<Out>(out, e, element_value<F>(w + (e / F::QK) * F::BYTES, int(e % F::QK), t));
}

template <class F>
void launch_dequant(const uint8_t* w, int64_t n, int64_t k, void* out, OutType o, const IqTables& t, void* stream) {
  const int64_t total = n * k;
  constexpr int threads = 256;
  const unsigned blocks = unsigned(std::min<int64_t>((total + threads - 1) / threads, int64_t(1) << 20));
  if (blocks == 0) return;
  auto s = static_cast<gpuStream_t>(stream);
  if (o == OutType::f32) dequant_kernel<F, 0><<<blocks, threads, 0, s>>>(w, total, out, t);
  else if (o == OutType::f16) dequant_kernel<F, 1><<<blocks, threads, 0, s>>>(w, total, out, t);
  else dequant_kernel<F, 2><<<blocks, threads, 0, s>>>(w, total, out, t);
}

}  // namespace qgate::cuk

// Expands kernels.inc for the formats of QGATE_CUDA_FAMILY_<family> (one family per .cu).
#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family) QGATE_CUDA_IF_##family(                                   \
  void dequant_##fmt(const uint8_t* w, int64_t n, int64_t k, void* out, OutType o, const IqTables& t,     \
                     void* stream) { launch_dequant<Fmt_##fmt>(w, n, k, out, o, t, stream); })
#define QGATE_CUDA_FORMAT(fmt, act, family) QGATE_CUDA_DEQUANT_FORMAT(fmt, family)
