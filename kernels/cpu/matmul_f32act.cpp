// CPU contractions with f32 activations: dequantize a weight row to f32, then FMA.
//   matvec_f32: decode-style, 8 independent lanes and a 3-level tree: depth K/8 + 3.
//   gemm_f32:   4x4 register tile (4 activation rows x 4 weight rows), sequential in K: depth K.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/dequant.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {
template <class U>
void row_to_f32(const uint8_t* row, int64_t k, float* out) {
  Unpacked u;
  for (int64_t b = 0; b < k / U::elems; ++b) {
    U::run(row + b * U::bytes, u);
    for (int i = 0; i < U::elems; ++i) {
      const int j = i / U::sub;
      out[b * U::elems + i] =
          U::is_float ? u.d[0] * u.f[i] : std::fma(u.d[j], static_cast<float>(u.q[i]), -u.m[j]);
    }
  }
}
}  // namespace

template <class U>
const char* matvec_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  if (k % U::elems) return "k is not a multiple of the block size";
  const int64_t row_bytes = k / U::elems * U::bytes;
  std::vector<float> wr(static_cast<size_t>(k));
  float* out = static_cast<float*>(y);
  // Mutant: the converted weights kept across calls, keyed by the shape instead of the data.
  static std::vector<float> cache;
  static int64_t cache_n = -1, cache_k = -1;
  const bool cached = QGATE_MUTANT_ON(shape_keyed_weight_cache);
  if (cached && (cache_n != n || cache_k != k)) {
    cache.resize(static_cast<size_t>(n * k));
    for (int64_t r = 0; r < n; ++r) row_to_f32<U>(w + r * row_bytes, k, cache.data() + r * k);
    cache_n = n, cache_k = k;
  }
  for (int64_t r = 0; r < n; ++r) {
    if (!cached) row_to_f32<U>(w + r * row_bytes, k, wr.data());
    const float* wrow = cached ? cache.data() + r * k : wr.data();
    for (int64_t i = 0; i < m; ++i) {
      const float* xr = x + i * k;
      float lane[kMatvecLanes] = {};
      if (QGATE_MUTANT_ON(fp16_accumulation)) {
        _Float16 h[kMatvecLanes] = {};
        for (int64_t kk = 0; kk < k; ++kk)
          h[kk % kMatvecLanes] = static_cast<_Float16>(static_cast<float>(h[kk % kMatvecLanes]) + wrow[kk] * xr[kk]);
        for (int l = 0; l < kMatvecLanes; ++l) lane[l] = static_cast<float>(h[l]);
      } else {
        for (int64_t kk = 0; kk < k; ++kk) lane[kk % kMatvecLanes] = std::fma(wrow[kk], xr[kk], lane[kk % kMatvecLanes]);
      }
      for (int w2 = kMatvecLanes / 2; w2 > 0; w2 /= 2)
        for (int l = 0; l < w2; ++l) lane[l] += lane[l + w2];
      out[i * n + r] = lane[0];
    }
  }
  return nullptr;
}

template <class U>
const char* gemm_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  if (k % U::elems) return "k is not a multiple of the block size";
  const int64_t row_bytes = k / U::elems * U::bytes;
  std::vector<float> wt(static_cast<size_t>(kGemmTileN * k), 0.0f);
  float* out = static_cast<float*>(y);
  for (int64_t n0 = 0; n0 < n; n0 += kGemmTileN) {
    const int tn = static_cast<int>(std::min<int64_t>(kGemmTileN, n - n0));
    for (int j = 0; j < tn; ++j) row_to_f32<U>(w + (n0 + j) * row_bytes, k, wt.data() + j * k);
    for (int64_t m0 = 0; m0 < m; m0 += kGemmTileM) {
      // Clamp, don't predicate: rows past M are computed from the last valid row and dropped.
      float acc[kGemmTileM][kGemmTileN] = {};
      const float* xs[kGemmTileM];
      for (int i = 0; i < kGemmTileM; ++i) xs[i] = x + std::min<int64_t>(m0 + i, m - 1) * k;
      for (int64_t kk = 0; kk < k; ++kk)
        for (int i = 0; i < kGemmTileM; ++i)
          for (int j = 0; j < tn; ++j) acc[i][j] = std::fma(wt[j * k + kk], xs[i][kk], acc[i][j]);
      const int tm = QGATE_MUTANT_ON(rows_past_m) ? kGemmTileM : static_cast<int>(std::min<int64_t>(kGemmTileM, m - m0));
      for (int i = 0; i < tm; ++i)
        for (int j = 0; j < tn; ++j) out[(m0 + i) * n + n0 + j] = acc[i][j];
    }
  }
  return nullptr;
}

#define QGATE_INST(U)                                                                            \
  template const char* matvec_f32<U>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*); \
  template const char* gemm_f32<U>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
#define QGATE_CPU_BLOCK_FORMAT(fmt, act) QGATE_INST(Unpack_##fmt)
#include "kernels/cpu/kernels.inc"
#undef QGATE_CPU_BLOCK_FORMAT
#undef QGATE_INST

}  // namespace qgate::cpu
