// CPU kernels for GPTQ / AutoRound int4 (auto_gptq v1 packing in qgate's container, see
// oracles/formats/gptq.hpp): dequant, mat-vec with f32 activations (any zeros, any
// g_idx), and the W4A8 symmetric fast path that folds the zero point 8 in as a constant
// and therefore refuses every checkpoint that is not declared symmetric.
#include "kernels/cpu/gptq.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/convert.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {
namespace {

struct View {
  int64_t k = 0, n = 0, group = 0, groups = 0;
  bool sym = false;
  const uint32_t* qweight = nullptr;
  const uint32_t* qzeros = nullptr;
  const uint16_t* scales = nullptr;
  const int32_t* g_idx = nullptr;
};

// The kernel trusts the gate to hand it a validated container; it still refuses a
// header that does not match the launch shape.
const char* view(const uint8_t* p, int64_t n, int64_t k, View& v) {
  if (std::memcmp(p, "QGGPTQ1", 8) != 0) return "not a qgate GPTQ container";
  uint32_t h[4];
  std::memcpy(h, p + 8, 16);
  v.k = h[0];
  v.n = h[1];
  v.group = h[2];
  v.sym = h[3] & 1u;
  if (v.k != k || v.n != n || v.group == 0) return "GPTQ container shape does not match the launch";
  v.groups = (v.k + v.group - 1) / v.group;
  const uint8_t* q = p + 32;
  v.qweight = reinterpret_cast<const uint32_t*>(q);
  q += 4 * (v.k / 8) * v.n;
  v.qzeros = reinterpret_cast<const uint32_t*>(q);
  q += 4 * v.groups * (v.n / 8);
  v.scales = reinterpret_cast<const uint16_t*>(q);
  q += 2 * v.groups * v.n;
  v.g_idx = (h[3] & 2u) ? reinterpret_cast<const int32_t*>(q) : nullptr;
  return nullptr;
}

inline int code(const View& v, int64_t kk, int64_t col) { return (v.qweight[(kk / 8) * v.n + col] >> (4 * (kk % 8))) & 15; }
inline int64_t group_of(const View& v, int64_t kk) { return v.g_idx ? v.g_idx[kk] : kk / v.group; }
inline int zero(const View& v, int64_t g, int64_t col) { return ((v.qzeros[g * (v.n / 8) + col / 8] >> (4 * (col % 8))) & 15) + 1; }
inline float scale(const View& v, int64_t g, int64_t col) {
  if (QGATE_MUTANT_ON(neighbour_group_scale) && g + 1 < v.groups) ++g;
  return h2f(v.scales[g * v.n + col]);
}

}  // namespace

template <OutType O>
const char* gptq_dequant(const uint8_t* w, int64_t n, int64_t k, void* out) {
  View v;
  if (const char* e = view(w, n, k, v)) return e;
  for (int64_t col = 0; col < n; ++col)
    for (int64_t kk = 0; kk < k; ++kk) {
      const int64_t g = group_of(v, kk);
      const float val = scale(v, g, col) * static_cast<float>(code(v, kk, col) - zero(v, g, col));  // exact
      const int64_t o = col * k + kk;
      if constexpr (O == OutType::f32) std::memcpy(static_cast<uint8_t*>(out) + 4 * o, &val, 4);
      else {
        const uint16_t h = O == OutType::f16 ? d2h(val) : d2bf(val);
        std::memcpy(static_cast<uint8_t*>(out) + 2 * o, &h, 2);
      }
    }
  return nullptr;
}
template const char* gptq_dequant<OutType::f32>(const uint8_t*, int64_t, int64_t, void*);
template const char* gptq_dequant<OutType::f16>(const uint8_t*, int64_t, int64_t, void*);
template const char* gptq_dequant<OutType::bf16>(const uint8_t*, int64_t, int64_t, void*);

// f32 activations, 8 lanes + tree (depth K/8 + 3), any zeros, any g_idx.
const char* gptq_matvec_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  View v;
  if (const char* e = view(w, n, k, v)) return e;
  std::vector<float> wr(static_cast<size_t>(k));
  float* out = static_cast<float*>(y);
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t kk = 0; kk < k; ++kk) {
      const int64_t g = group_of(v, kk);
      wr[kk] = scale(v, g, col) * static_cast<float>(code(v, kk, col) - zero(v, g, col));
    }
    for (int64_t i = 0; i < m; ++i) {
      float lane[8] = {};
      for (int64_t kk = 0; kk < k; ++kk) lane[kk % 8] = std::fma(wr[kk], x[i * k + kk], lane[kk % 8]);
      for (int w2 = 4; w2 > 0; w2 /= 2)
        for (int l = 0; l < w2; ++l) lane[l] += lane[l + w2];
      out[i * n + col] = lane[0];
    }
  }
  return nullptr;
}

// Prefill with f32 activations: 4 activation rows x 8 columns per tile, each tile's
// columns dequantized once, sequential in K (depth K). Rows past M clamped and dropped.
const char* gptq_gemm_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  View v;
  if (const char* e = view(w, n, k, v)) return e;
  constexpr int TM = 4, TN = 8;
  std::vector<float> wt(static_cast<size_t>(TN * k));
  float* out = static_cast<float*>(y);
  for (int64_t c0 = 0; c0 < n; c0 += TN) {  // n is a multiple of 8
    for (int j = 0; j < TN; ++j)
      for (int64_t kk = 0; kk < k; ++kk) {
        const int64_t g = group_of(v, kk);
        wt[j * k + kk] = scale(v, g, c0 + j) * static_cast<float>(code(v, kk, c0 + j) - zero(v, g, c0 + j));
      }
    for (int64_t m0 = 0; m0 < m; m0 += TM) {
      float acc[TM][TN] = {};
      for (int64_t kk = 0; kk < k; ++kk)
        for (int i = 0; i < TM; ++i) {
          const float xv = x[std::min<int64_t>(m0 + i, m - 1) * k + kk];
          for (int j = 0; j < TN; ++j) acc[i][j] = std::fma(wt[j * k + kk], xv, acc[i][j]);
        }
      const int tm = static_cast<int>(std::min<int64_t>(TM, m - m0));
      for (int i = 0; i < tm; ++i)
        for (int j = 0; j < TN; ++j) out[(m0 + i) * n + c0 + j] = acc[i][j];
    }
  }
  return nullptr;
}

// W4A8: activations to q8_1 (per 32), per 32-block the exact integer
// sum (q - z) * q8 = isum - z * qsum, then acc += (s_g * d_x) * that. Depth: K/32 + 3.
// Asymmetric W4A8 (per-group zeros): isum - z * qsum is an exact integer, so the
// arithmetic and the declared depth are the same as the symmetric path's.
template <bool Sym>
const char* gptq_matvec_q8_1(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  View v;
  if (const char* e = view(w, n, k, v)) return e;
  if ((Sym && !v.sym) || v.g_idx || v.group % 32) return "unsupported GPTQ checkpoint for this W4A8 kernel";
  if (k % 32) return "k is not a multiple of 32";
  const int sym_zero = QGATE_MUTANT_ON(gptq_zero_7) ? 7 : 8;
  const int64_t nb = k / 32;
  std::vector<int8_t> xq(static_cast<size_t>(m * k));
  std::vector<float> xd(static_cast<size_t>(m * nb));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t b = 0; b < nb; ++b) {
      const float* xb = x + i * k + b * 32;
      float amax = 0;
      for (int e = 0; e < 32; ++e) amax = std::max(amax, std::fabs(xb[e]));
      const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
      for (int e = 0; e < 32; ++e) xq[i * k + b * 32 + e] = static_cast<int8_t>(std::round(xb[e] * id));
      xd[i * nb + b] = h2f(d2h(d));
    }
  float* out = static_cast<float*>(y);
  for (int64_t col = 0; col < n; ++col)
    for (int64_t i = 0; i < m; ++i) {
      float acc = 0;
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t g = b * 32 / v.group;
        int32_t isum = 0, qsum = 0;
        for (int e = 0; e < 32; ++e) {
          const int64_t kk = b * 32 + e;
          isum += code(v, kk, col) * xq[i * k + kk];
          qsum += xq[i * k + kk];
        }
        const int z = Sym ? sym_zero : zero(v, g, col);  // Sym: folded in as a constant
        acc += (scale(v, g, col) * xd[i * nb + b]) * static_cast<float>(isum - z * qsum);
      }
      out[i * n + col] = acc;
    }
  return nullptr;
}

template const char* gptq_matvec_q8_1<true>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
template const char* gptq_matvec_q8_1<false>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);

}  // namespace qgate::cpu
