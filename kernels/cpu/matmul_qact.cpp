// CPU mat-vec with quantized activations, the way GGUF CPU and GPU dot products run:
// quantize each activation row (q8_1 per 32, q8_K per 256, or e4m3 per token), then per
// weight block an exact integer dot per sub-block, scaled in f32:
//   inner = sum_j (d_w[j] * isum_j - m_w[j] * qsum_j);  acc += d_x * inner
// (summed over the activation blocks of a weight block where it spans several). Declared
// depth: blocks + qact_inner_depth (dequant.hpp); the same for the tiled GEMM, which
// accumulates each output sequentially over blocks.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/convert.hpp"
#include "kernels/cpu/dequant.hpp"

namespace qgate::cpu {
namespace {

struct QRow {  // one quantized activation row
  std::vector<int8_t> q;
  std::vector<float> d;   // per activation block (q8_1 / q8_K), or one per row (fp8)
  std::vector<float> f;   // fp8: decoded e4m3 values
};

void quantize_q8_1(const float* x, int64_t k, QRow& r) {
  r.q.resize(static_cast<size_t>(k));
  r.d.resize(static_cast<size_t>(k / 32));
  for (int64_t b = 0; b < k / 32; ++b) {
    float amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[b * 32 + i]));
    const float d = amax / 127.0f;
    const float id = d != 0 ? 1.0f / d : 0.0f;
    for (int i = 0; i < 32; ++i) r.q[b * 32 + i] = static_cast<int8_t>(std::round(x[b * 32 + i] * id));
    r.d[b] = h2f(d2h(d));  // the block stores d as fp16
  }
}

void quantize_q8_K(const float* x, int64_t k, QRow& r) {
  r.q.resize(static_cast<size_t>(k));
  r.d.resize(static_cast<size_t>(k / 256));
  for (int64_t b = 0; b < k / 256; ++b) {
    const float* xb = x + b * 256;
    float amax = 0, max = 0;
    for (int i = 0; i < 256; ++i)
      if (std::fabs(xb[i]) > amax) { amax = std::fabs(xb[i]); max = xb[i]; }
    if (amax == 0) {
      r.d[b] = 0;
      std::memset(r.q.data() + b * 256, 0, 256);
      continue;
    }
    const float iscale = -127.0f / max;
    for (int i = 0; i < 256; ++i)
      r.q[b * 256 + i] = static_cast<int8_t>(std::min(127L, std::lrint(iscale * xb[i])));
    r.d[b] = 1.0f / iscale;
  }
}

void quantize_fp8_token(const float* x, int64_t k, QRow& r) {
  r.f.resize(static_cast<size_t>(k));
  float amax = 0;
  for (int64_t i = 0; i < k; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float scale = amax / 448.0f;
  const float inv = scale != 0 ? 1.0f / scale : 0.0f;
  for (int64_t i = 0; i < k; ++i) r.f[i] = e4m3_to_f(f_to_e4m3(x[i] * inv));
  r.d.assign(1, scale);
}

// One weight block against the activation row's blocks under it: the f32 value the kernel
// adds to its accumulator. Per activation block an exact integer dot per piece (a sub-block,
// or the part of one inside the activation block), the pieces' scaled sums added in f32,
// times the activation scale; a weight block spanning several activation blocks adds those.
template <class U, int AB>
inline float block_term(const Unpacked& u, const QRow& xr, int64_t b) {
  if constexpr (U::is_float) {
    const float* xf = xr.f.data() + b * U::elems;
    float inner = 0;
    for (int e = 0; e < U::elems; ++e) inner += u.f[e] * xf[e];  // fp8 x fp8 products are exact in f32
    return (u.d[0] * xr.d[0]) * inner;
  } else {
    constexpr int piece = U::sub < AB ? U::sub : AB;
    const int8_t* xq = xr.q.data() + b * U::elems;
    const float* xd = xr.d.data() + b * (U::elems / AB);
    float term = 0;
    for (int a = 0; a < U::elems / AB; ++a) {
      float inner = 0;
      for (int p = a * AB; p < (a + 1) * AB; p += piece) {
        const int j = p / U::sub;
        int32_t isum = 0, qsum = 0;
        for (int e = p; e < p + piece; ++e) {
          isum += static_cast<int32_t>(u.q[e]) * xq[e];
          qsum += xq[e];
        }
        inner += u.d[j] * static_cast<float>(isum) - u.m[j] * static_cast<float>(qsum);
      }
      term += xd[a] * inner;
    }
    return term;
  }
}

template <ActQuant A>
std::vector<QRow> quantize_rows(const float* x, int64_t m, int64_t k) {
  std::vector<QRow> xs(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    if constexpr (A == ActQuant::q8_1) quantize_q8_1(x + i * k, k, xs[i]);
    else if constexpr (A == ActQuant::q8_K) quantize_q8_K(x + i * k, k, xs[i]);
    else quantize_fp8_token(x + i * k, k, xs[i]);
  }
  return xs;
}

}  // namespace

template <class U, ActQuant A>
const char* matvec_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  constexpr int ablock = act_block_elems<U, A>();
  static_assert(U::is_float == (A == ActQuant::fp8_e4m3_token), "fp8 weights pair with fp8 activations");
  static_assert(U::elems % ablock == 0, "a weight block holds whole activation blocks");
  if (k % U::elems) return "k is not a multiple of the block size";
  const int64_t nb = k / U::elems, row_bytes = nb * U::bytes;
  const std::vector<QRow> xs = quantize_rows<A>(x, m, k);
  float* out = static_cast<float*>(y);
  Unpacked u;
  std::vector<float> acc(static_cast<size_t>(m));
  for (int64_t r = 0; r < n; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t b = 0; b < nb; ++b) {
      U::run(w + r * row_bytes + b * U::bytes, u);
      for (int64_t i = 0; i < m; ++i) acc[i] += block_term<U, ablock>(u, xs[i], b);
    }
    for (int64_t i = 0; i < m; ++i) out[i * n + r] = acc[i];
  }
  return nullptr;
}

// Prefill: a 4x4 tile (activation rows x weight rows) walks K block by block, each weight
// block unpacked once per tile; rows past M are clamped to the last row and dropped.
template <class U, ActQuant A>
const char* gemm_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  constexpr int ablock = act_block_elems<U, A>();
  if (k % U::elems) return "k is not a multiple of the block size";
  const int64_t nb = k / U::elems, row_bytes = nb * U::bytes;
  const std::vector<QRow> xs = quantize_rows<A>(x, m, k);
  float* out = static_cast<float*>(y);
  Unpacked u[kGemmTileN];
  for (int64_t n0 = 0; n0 < n; n0 += kGemmTileN) {
    const int tn = static_cast<int>(std::min<int64_t>(kGemmTileN, n - n0));
    for (int64_t m0 = 0; m0 < m; m0 += kGemmTileM) {
      const int tm = static_cast<int>(std::min<int64_t>(kGemmTileM, m - m0));
      float acc[kGemmTileM][kGemmTileN] = {};
      for (int64_t b = 0; b < nb; ++b) {
        for (int j = 0; j < tn; ++j) U::run(w + (n0 + j) * row_bytes + b * U::bytes, u[j]);
        for (int i = 0; i < kGemmTileM; ++i) {
          const QRow& xr = xs[std::min<int64_t>(m0 + i, m - 1)];
          for (int j = 0; j < tn; ++j) acc[i][j] += block_term<U, ablock>(u[j], xr, b);
        }
      }
      for (int i = 0; i < tm; ++i)
        for (int j = 0; j < tn; ++j) out[(m0 + i) * n + n0 + j] = acc[i][j];
    }
  }
  return nullptr;
}

#define QGATE_INST_Q(U, A)                                                                         \
  template const char* matvec_qact<U, A>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*); \
  template const char* gemm_qact<U, A>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
// Every kernels.inc row with activation quantization (not the activation formats' own rows).
#define QGATE_INST_Q_none(U)
#define QGATE_INST_Q_q8_1(U) QGATE_INST_Q(U, ActQuant::q8_1)
#define QGATE_INST_Q_q8_K(U) QGATE_INST_Q(U, ActQuant::q8_K)
#define QGATE_INST_Q_fp8_e4m3_token(U) QGATE_INST_Q(U, ActQuant::fp8_e4m3_token)
#define QGATE_CPU_BLOCK_FORMAT(fmt, act) QGATE_INST_Q_##act(Unpack_##fmt)
#include "kernels/cpu/kernels.inc"
#undef QGATE_CPU_BLOCK_FORMAT
#undef QGATE_INST_Q_fp8_e4m3_token
#undef QGATE_INST_Q_q8_K
#undef QGATE_INST_Q_q8_1
#undef QGATE_INST_Q_none
#undef QGATE_INST_Q

}  // namespace qgate::cpu
