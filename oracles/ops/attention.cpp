#include "oracles/ops/attention.hpp"

#include <algorithm>
#include <cmath>

namespace qgate {

DecodeError attention_ref(const float* q, const float* k, const float* v, const AttentionShape& s,
                          const AttentionPrecision& p, Reference& out, std::vector<double>* emulated) {
  if (s.tokens < 1 || s.n_head < 1 || s.n_head_kv < 1 || s.d < 1 || s.kv_len < 1)
    return {"attention: tokens, heads, d and kv_len must be >= 1"};
  if (s.n_head % s.n_head_kv) return {"attention: n_head is not a multiple of n_head_kv"};
  if (s.tokens > s.kv_len) return {"attention: more queries than cached rows"};
  if (s.kv_cap < s.kv_len) return {"attention: kv_len exceeds the cache capacity"};
  if (!std::isfinite(s.scale)) return {"attention: non-finite scale"};
  constexpr double u = 0x1p-24;
  const FusedMath& fm = p.math;
  // Eager attention's P is the division e / l (div_rel); flash attention's P is an exp
  // rounded to P's type.
  const double uP = p.tile > 0 ? out_unit_roundoff(p.p_type) : std::max(out_unit_roundoff(p.p_type), fm.div_rel());
  const double absw = out_half_min_sub(p.p_type) + fm.underflow();
  const int64_t lqk = p.qk_depth > 0 ? p.qk_depth : s.d;
  const double gqk = gamma(lqk + 1, 23);
  const int64_t g = s.n_head / s.n_head_kv;
  const int64_t rows = s.tokens * s.n_head;
  out.rows = rows;
  out.cols = s.d;
  out.out = OutType::f32;
  out.exact_rounding = false;
  out.tie_elements = 0;
  out.value.assign(static_cast<size_t>(rows * s.d), 0.0);
  out.bound.assign(out.value.size(), 0.0);
  if (emulated) emulated->assign(out.value.size(), 0.0);
  std::vector<double> sc, ds, w, eta;
  for (int64_t t = 0; t < s.tokens; ++t) {
    const int64_t n = s.kv_len - s.tokens + t + 1;  // visible keys 0..n-1 (causal)
    const int64_t tiles = p.tile > 0 ? (n + p.tile - 1) / p.tile : 0;
    for (int64_t h = 0; h < s.n_head; ++h) {
      const float* qr = q + (t * s.n_head + h) * s.d;
      const float* kh = k + (h / g) * s.kv_cap * s.d;
      const float* vh = v + (h / g) * s.kv_cap * s.d;
      sc.assign(static_cast<size_t>(n), 0);
      ds.assign(sc.size(), 0);
      double m = -INFINITY, mn = INFINITY, dsmax = 0;
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0, mag = 0;  // products of two f32 are exact in fp64
        for (int64_t i = 0; i < s.d; ++i) {
          const double pr = static_cast<double>(qr[i]) * kh[j * s.d + i];
          dot += pr;
          mag += std::fabs(pr);
        }
        sc[j] = s.scale * dot;
        if (!std::isfinite(sc[j])) return {"attention: non-finite score"};
        ds[j] = std::fabs(s.scale) * gqk * mag;
        m = std::max(m, sc[j]);
        mn = std::min(mn, sc[j]);
        dsmax = std::max(dsmax, ds[j]);
      }
      // Each tile's rescale exp(m_old - m_new): exp_rel(m_old - m_new) and the subtraction's u;
      // the running max only grows, so the arguments sum to at most R = m - min s (+ 2 ds).
      const double R = m - mn + 2 * dsmax;
      const double resc =
          tiles > 0 ? std::expm1(static_cast<double>(tiles) * fm.exp_rel(0) + fm.exp_ulp_per_x * 0x1p-23 * R + u * R) : 0;
      w.assign(sc.size(), 0);
      eta.assign(sc.size(), 0);
      double D = 0, Demu = 0, Bsum = 0;
      const int64_t LN = n + tiles + 2, LD = n + tiles + 1;
      const double gN = gamma(LN, 23), gD = gamma(LD, 23);
      for (int64_t j = 0; j < n; ++j) {
        w[j] = std::exp(sc[j] - m);
        D += w[j];
        const double ej = ds[j] + u * (std::fabs(sc[j] - m) + 2 * dsmax);
        eta[j] = (1 + std::expm1(ej)) * (1 + fm.exp_rel(std::fabs(sc[j] - m) + ds[j] + dsmax)) * (1 + uP) * (1 + resc) - 1;
      }
      for (int64_t j = 0; j < n; ++j) Bsum += w[j] / D * ((1 + eta[j]) * (1 + gD) - 1);
      // Flushing devices also lose products p v below 2^-126 (2^-126 each, D >= 1).
      const double flushed = fm.flush_denormals ? static_cast<double>(n + tiles + 2) * 0x1p-126 : 0;
      const double B = Bsum + static_cast<double>(n) * absw * (1 + gD) / D + flushed;
      if (!(B < 0.5)) return {"attention: the declared precision cannot bound this case (B >= 1/2)"};
      std::vector<double> wr;
      if (emulated) {
        wr.resize(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; ++j) Demu += wr[j] = out_round(w[j], p.p_type);
      }
      const double slack_rel = static_cast<double>(n + s.d + 16) * 0x1p-52;
      for (int64_t i = 0; i < s.d; ++i) {
        double num = 0, absV = 0, A = 0, pv = 0, emu = 0;
        for (int64_t j = 0; j < n; ++j) {
          const double vj = vh[j * s.d + i];
          num += w[j] * vj;
          absV += std::fabs(vj);
          pv += w[j] / D * std::fabs(vj);
          A += w[j] / D * std::fabs(vj) * ((1 + eta[j]) * (1 + gN) - 1);
          if (emulated) emu += wr[j] * vj;
        }
        A += absw * absV * (1 + gN) / D + flushed;
        const double o = num / D;
        const double ao = std::fabs(o);
        const int64_t idx = (t * s.n_head + h) * s.d + i;
        out.value[idx] = o;
        const double dr = std::max(u, fm.div_rel());  // the final N / D
        out.bound[idx] = (A + ao * B) / (1 - B) * (1 + dr) + dr * ao + fm.underflow() + slack_rel * (pv + ao);
        if (emulated) (*emulated)[idx] = emu / Demu;
      }
    }
  }
  return {};
}

}  // namespace qgate
