#include "oracles/ops/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qgate {
namespace {

constexpr double kU = 0x1p-24;  // f32 unit roundoff

void shape(Reference& r, int64_t rows, int64_t cols, bool exact) {
  r.rows = rows;
  r.cols = cols;
  r.out = OutType::f32;
  r.exact_rounding = exact;
  r.tie_elements = 0;
  r.value.assign(static_cast<size_t>(rows * cols), 0.0);
  r.bound.assign(r.value.size(), 0.0);
}

double oracle_slack(int64_t n) { return static_cast<double>(n + 16) * 0x1p-53; }

// Exact RMS normalization of one f32 vector (fp64: squares of f32 values are exact, the sum
// and the square root round at 2^-53). Returns 1 / sqrt(mean(h^2) + eps) and v.
double inv_rms(const double* h, int64_t n, double eps, double& v) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += h[i] * h[i];
  v = s / static_cast<double>(n) + eps;
  return 1.0 / std::sqrt(v);
}

// The bound on an RMS-normalized element y of a row with mean square + eps = v.
double norm_bound(double y, double v, int64_t n, int64_t depth, const FusedMath& fm) {
  const double rel = gamma(depth + 6 + fm.rsqrt_roundings, 23) + oracle_slack(n) + fm.underflow() / v;
  return rel * std::fabs(y) + 2 * fm.underflow();
}

}  // namespace

DecodeError add_rmsnorm_ref(const float* x, const float* res, const float* w, int64_t rows, int64_t n, float eps,
                            int64_t depth, Reference& h, Reference& y, const FusedMath& fm) {
  if (rows < 1 || n < 1) return {"add_rmsnorm: rows and n must be >= 1"};
  if (!(eps > 0) || !std::isfinite(eps)) return {"add_rmsnorm: eps must be finite and > 0"};
  shape(h, rows, n, true);
  shape(y, rows, n, false);
  std::vector<double> hr(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const double e = static_cast<double>(x[r * n + i]) + res[r * n + i];  // exact in fp64
      h.value[r * n + i] = e;
      hr[i] = static_cast<double>(static_cast<float>(e));  // the kernel's declared f32 h
      if (!std::isfinite(hr[i])) return {"add_rmsnorm: x + res overflows f32 at row " + std::to_string(r)};
    }
    double v;
    const double ir = inv_rms(hr.data(), n, eps, v);
    for (int64_t i = 0; i < n; ++i) {
      const double yi = hr[i] * ir * w[i];
      y.value[r * n + i] = yi;
      y.bound[r * n + i] = norm_bound(yi, v, n, depth, fm);
    }
  }
  return {};
}

DecodeError qk_norm_rope_ref(const float* q, const float* k, const float* v, const float* w_q, const float* w_k,
                             const int32_t* pos, int64_t tokens, int64_t n_head, int64_t n_head_kv, int64_t d,
                             float eps, float rope_base, bool neox, int64_t depth, QkRopeRef& out,
                             const FusedMath& fm) {
  if (tokens < 1 || n_head < 1 || n_head_kv < 1 || d < 2 || d % 2)
    return {"qk_norm_rope: tokens, heads >= 1 and an even head dim d >= 2 required"};
  if (!(eps > 0) || !(rope_base > 1) || !std::isfinite(rope_base)) return {"qk_norm_rope: eps > 0 and rope_base > 1 required"};
  for (int64_t t = 0; t < tokens; ++t)
    if (pos[t] < 0 || pos[t] >= (1 << 24)) return {"qk_norm_rope: position " + std::to_string(pos[t]) + " out of range"};
  shape(out.q, tokens * n_head, d, false);
  shape(out.k, tokens * n_head_kv, d, false);
  shape(out.v, tokens * n_head_kv, d, true);
  const double lnb = std::log(static_cast<double>(rope_base));
  std::vector<double> a(static_cast<size_t>(d));
  auto one = [&](const float* src, const float* wt, int32_t p, double* val, double* bnd) {
    for (int64_t i = 0; i < d; ++i) a[i] = src[i];
    double vv;
    const double ir = inv_rms(a.data(), d, eps, vv);
    for (int64_t i = 0; i < d; ++i) a[i] = a[i] * ir * wt[i];
    const double g = gamma(depth + 6 + fm.rsqrt_roundings + fm.rotate_roundings, 23) + oracle_slack(d) + fm.underflow() / vv;
    for (int64_t i = 0; i < d / 2; ++i) {
      int64_t i0, i1;
      rope_pair(neox, d, i, i0, i1);
      const double ex = -2.0 * static_cast<double>(i) / static_cast<double>(d);
      const double theta = static_cast<double>(p) * std::exp(lnb * ex);
      const double dt = std::fabs(theta) * (std::fabs(lnb * ex) + 3) * kU * (1 + 0x1p-20);
      const double c = std::cos(theta), s = std::sin(theta);
      const double x0 = a[i0], x1 = a[i1];
      const double o0 = x0 * c - x1 * s, o1 = x0 * s + x1 * c;
      const double trig = (std::fabs(x0) + std::fabs(x1)) * (dt + fm.trig_u * kU);
      val[i0] = o0;
      val[i1] = o1;
      const double uf = 2 * fm.underflow() + 2 * fm.underflow() * fm.rotate_roundings;
      bnd[i0] = trig + (std::fabs(x0 * c) + std::fabs(x1 * s)) * g * (1 + dt + fm.trig_u * kU) + uf;
      bnd[i1] = trig + (std::fabs(x0 * s) + std::fabs(x1 * c)) * g * (1 + dt + fm.trig_u * kU) + uf;
    }
  };
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t h = 0; h < n_head; ++h) {
      const int64_t row = t * n_head + h;
      one(q + row * d, w_q, pos[t], out.q.value.data() + row * d, out.q.bound.data() + row * d);
    }
    for (int64_t h = 0; h < n_head_kv; ++h) {
      const int64_t row = t * n_head_kv + h;
      one(k + row * d, w_k, pos[t], out.k.value.data() + row * d, out.k.bound.data() + row * d);
      for (int64_t i = 0; i < d; ++i) out.v.value[row * d + i] = v[row * d + i];
    }
  }
  return {};
}

DecodeError moe_route_ref(const float* logits, int64_t rows, int64_t experts, int64_t top_k, RouteRef& out,
                          const FusedMath& fm) {
  if (rows < 1 || experts < 1 || top_k < 1 || top_k > experts)
    return {"moe_route: need rows >= 1 and 1 <= top_k <= experts"};
  out.rows = rows;
  out.experts = experts;
  out.top_k = top_k;
  out.math = fm;
  out.logit.assign(logits, logits + rows * experts);
  out.prob.assign(static_cast<size_t>(rows * experts), 0.0);
  out.prob_bound = out.prob;
  out.rho = out.prob;
  out.ids.assign(static_cast<size_t>(rows * top_k), -1);
  const double gE = gamma(std::max<int64_t>(experts - 1, 0), 23);
  std::vector<int32_t> order(static_cast<size_t>(experts));
  for (int64_t r = 0; r < rows; ++r) {
    const float* l = logits + r * experts;
    double m = -INFINITY;
    for (int64_t j = 0; j < experts; ++j) {
      if (!std::isfinite(l[j])) return {"moe_route: non-finite logit at row " + std::to_string(r)};
      m = std::max(m, static_cast<double>(l[j]));
    }
    double sum = 0, rho_max = 0;
    double* p = out.prob.data() + r * experts;
    double* rho = out.rho.data() + r * experts;
    for (int64_t j = 0; j < experts; ++j) {
      const double z = static_cast<double>(l[j]) - m;  // exact: both are f32
      p[j] = std::exp(z);
      sum += p[j];
      rho[j] = (1 + std::expm1(std::fabs(z) * kU)) * (1 + fm.exp_rel(z)) - 1 + oracle_slack(experts);
      rho_max = std::max(rho_max, rho[j]);
    }
    for (int64_t j = 0; j < experts; ++j) {
      p[j] /= sum;
      out.prob_bound[r * experts + j] =
          p[j] * ((1 + rho[j]) * (1 + fm.div_rel()) / ((1 - rho_max) * (1 - gE)) - 1) + 2 * fm.underflow() / (1 - gE);
    }
    std::iota(order.begin(), order.end(), 0);
    // Exact order: the logits themselves (exp is monotonic), lower index first on equality.
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return l[a] > l[b]; });
    for (int64_t s = 0; s < top_k; ++s) out.ids[r * top_k + s] = order[s];
  }
  return {};
}

void moe_route_judge(const RouteRef& ref, const int32_t* ids, Reference& weights, int64_t& bad_rows,
                     int64_t& near_ties, std::string& first_error) {
  const int64_t E = ref.experts, K = ref.top_k;
  shape(weights, ref.rows, K, false);
  bad_rows = near_ties = 0;
  const double gK = gamma(std::max<int64_t>(K - 1, 0), 23);
  std::vector<char> chosen(static_cast<size_t>(E));
  for (int64_t r = 0; r < ref.rows; ++r) {
    const int32_t* got = ids + r * K;
    const double* p = ref.prob.data() + r * E;
    const double* pb = ref.prob_bound.data() + r * E;
    const float* l = ref.logit.data() + r * E;
    std::string why;
    bool tie = false;
    std::fill(chosen.begin(), chosen.end(), 0);
    for (int64_t s = 0; s < K && why.empty(); ++s) {
      if (got[s] < 0 || got[s] >= E) why = "slot " + std::to_string(s) + " holds expert id " + std::to_string(got[s]);
      else if (chosen[got[s]]) why = "expert " + std::to_string(got[s]) + " chosen twice";
      else chosen[got[s]] = 1;
    }
    // a ranked before b is admissible when b's probability cannot exceed a's: equal logits
    // need a < b (the tie rule), different ones need overlapping intervals at least.
    auto before = [&](int32_t a, int32_t b) {
      if (l[a] == l[b]) {
        if (a > b) why = "equal logits: expert " + std::to_string(b) + " must come before " + std::to_string(a);
      } else if (p[a] < p[b]) {
        if (p[a] + pb[a] >= p[b] - pb[b]) tie = true;
        else why = "expert " + std::to_string(a) + " (p=" + std::to_string(p[a]) + ") ranked before " +
                   std::to_string(b) + " (p=" + std::to_string(p[b]) + ")";
      }
    };
    const int32_t* use = got;
    if (why.empty()) {
      for (int64_t s = 0; s < K && why.empty(); ++s) {
        for (int64_t s2 = s + 1; s2 < K && why.empty(); ++s2) before(got[s], got[s2]);
        for (int32_t b = 0; b < E && why.empty(); ++b)
          if (!chosen[b]) before(got[s], b);
      }
    }
    if (!why.empty()) {
      if (bad_rows++ == 0) first_error = "row " + std::to_string(r) + ": " + why;
      use = ref.ids.data() + r * K;
    } else {
      near_ties += tie;
    }
    double sum = 0, rho_max = 0;
    for (int64_t s = 0; s < K; ++s) {
      sum += p[use[s]];
      rho_max = std::max(rho_max, ref.rho[r * E + use[s]]);
    }
    for (int64_t s = 0; s < K; ++s) {
      const double wv = p[use[s]] / sum;
      const double dr = ref.math.div_rel();
      const double rel = (1 + ref.rho[r * E + use[s]]) * (1 + dr) * (1 + dr) / ((1 - rho_max) * (1 - dr) * (1 - gK)) - 1;
      weights.value[r * K + s] = wv;
      // underflow: a probability below the normal range (flushed or denormal) changes it by
      // up to underflow() absolute; relative to the chosen sum (>= p of the top expert).
      weights.bound[r * K + s] = wv * (rel + oracle_slack(E)) + 4 * ref.math.underflow() / (sum * (1 - gK)) + 2 * ref.math.underflow();
    }
  }
  weights.tie_elements = near_ties;
}

DecodeError silu_mul_ref(const float* gate, const float* up, int64_t rows, int64_t n, Reference& y,
                         const FusedMath& fm) {
  if (rows < 1 || n < 1) return {"silu_mul: rows and n must be >= 1"};
  shape(y, rows, n, false);
  // exp(-g) (exp_rel; its relative error passes to 1 + e scaled by e / (1 + e) <= 1), 1 + e
  // (u), the division (div_rel), * up (u); the CPU's: gamma_6 (expf 2u, a reciprocal and a
  // product or a division 2u). Below g = -87 the divisor exceeds 2^126 (where OpFDiv has no
  // declared precision) and expf(-g) overflows near -88.7: the bound there is |y| itself.
  const double cpu = gamma(6, 23);
  for (int64_t i = 0; i < rows * n; ++i) {
    const double g = gate[i], u = up[i];
    const double v = g / (1 + std::exp(-g)) * u;
    const double rel = std::max(cpu, (1 + fm.exp_rel(g)) * (1 + fm.div_rel()) * (1 + kU) * (1 + kU) * (1 + fm.underflow()) - 1);
    y.value[i] = v;
    y.bound[i] = (g < -87 ? std::fabs(v) : 0) + (rel + oracle_slack(4)) * std::fabs(v) + 0x1p-147 +
                 (fm.flush_denormals ? 3 * 0x1p-126 * (1 + std::fabs(u)) : 0);
  }
  return {};
}

DecodeError gate_up_ref(const QTensor& w, const float* x, int64_t m, const Precision& p, Reference& out,
                        const FusedMath& fm) {
  if (w.n < 2 || w.n % 2) return {"gate_up: the merged weight needs an even number of rows (gate rows, then up rows)"};
  Reference both;
  if (auto e = matmul_ref(w, x, m, p, both)) return e;
  const int64_t n = w.n / 2;
  out.rows = m;
  out.cols = n;
  out.out = OutType::f32;
  out.exact_rounding = false;
  out.tie_elements = both.tie_elements;
  out.value.assign(static_cast<size_t>(m * n), 0.0);
  out.bound.assign(out.value.size(), 0.0);
  // expf (2 exp_ulp roundings), 1 + e, the division (2 div_ulp), * up, the product: gamma_6
  // for the CPU's 1 ULP expf and correctly rounded division.
  const int roundings = 3 + static_cast<int>(std::ceil(2 * fm.exp_ulp)) + static_cast<int>(std::ceil(2 * fm.div_ulp));
  const double g6 = gamma(roundings, 23) + oracle_slack(4);
  constexpr double kSiluLipschitz = 1.1;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t i = 0; i < n; ++i) {
      const double g = both.value[r * w.n + i], dg = both.bound[r * w.n + i];
      const double u = both.value[r * w.n + n + i], du = both.bound[r * w.n + n + i];
      const double sg = g / (1 + std::exp(-g));
      const double mag = (std::fabs(sg) + kSiluLipschitz * dg) * (std::fabs(u) + du);
      out.value[r * n + i] = sg * u;
      out.bound[r * n + i] = kSiluLipschitz * dg * (std::fabs(u) + du) + std::fabs(sg) * du + g6 * mag +
                             (g - dg < -87 ? mag : 0) + 0x1p-147;
    }
  return {};
}

}  // namespace qgate
