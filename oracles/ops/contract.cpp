#include "oracles/ops/contract.hpp"

#include <cmath>

namespace qgate {

double gamma(int64_t n, int fraction_bits) {
  const double nu = static_cast<double>(n) * std::ldexp(1.0, -(fraction_bits + 1));
  return nu >= 1 ? INFINITY : nu / (1 - nu);
}

DecodeError matmul_ref(const QTensor& w, const float* x, int64_t m, const Precision& p, Reference& out) {
  if (m < 1) return {"matmul: m must be >= 1"};
  if (w.k % act_block(p.act) != 0)
    return {"matmul: k=" + std::to_string(w.k) + " is not a multiple of the " + std::string(act_name(p.act)) +
            " block " + std::to_string(act_block(p.act))};
  std::vector<double> wv, wm;
  if (auto e = decode_tensor(w, wv, wm)) return e;
  const QuantizedActs xa = quantize_act_ref(p.act, x, m, w.k);
  if (!xa.error.empty()) return {"matmul: " + xa.error};
  const int64_t depth = (p.depth ? p.depth(w.k) : w.k) + 4;
  const double g = gamma(depth, p.acc_fraction_bits);
  const double uo = out_unit_roundoff(p.out);
  out.rows = m;
  out.cols = w.n;
  out.out = p.out;
  out.exact_rounding = false;
  out.tie_elements = xa.ties;
  out.value.assign(static_cast<size_t>(m * w.n), 0.0);
  out.bound.assign(out.value.size(), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    const double* xr = xa.value.data() + i * w.k;
    const double* tr = xa.tie_step.data() + i * w.k;
    for (int64_t n = 0; n < w.n; ++n) {
      const double* wr = wv.data() + n * w.k;
      const double* mr = wm.data() + n * w.k;
      // Exact products (TwoProduct: t + e = w*x exactly, e by fma) summed with Neumaier
      // compensation: the oracle's own error stays ~2^-53 |y| + K 2^-105 S, far inside the
      // 2^-50 S the bound reserves for it.
      double sum = 0, comp = 0, s = 0, tie = 0, xabs = 0;
      auto add = [&](double t) {
        const double ns = sum + t;
        comp += std::fabs(sum) >= std::fabs(t) ? (sum - ns) + t : (t - ns) + sum;
        sum = ns;
      };
      for (int64_t kk = 0; kk < w.k; ++kk) {
        const double t = wr[kk] * xr[kk];
        add(t);
        add(std::fma(wr[kk], xr[kk], -t));
        s += mr[kk] * std::fabs(xr[kk]);
        tie += mr[kk] * tr[kk];  // mag >= |w| also covers the neighbour code's roundings
        xabs += std::fabs(xr[kk]);
      }
      const double y = sum + comp;
      const double underflow = p.flush_denormals
                                   ? std::ldexp(4.0 * static_cast<double>(w.k) + xabs, -126)
                                   : 4.0 * static_cast<double>(w.k) * std::ldexp(1.0, -149);
      const double acc = g * s + underflow + std::ldexp(s, -50) + tie;
      out.value[i * w.n + n] = y;
      out.bound[i * w.n + n] = acc + uo * (std::fabs(y) + acc) + out_half_min_sub(p.out);
    }
  }
  return {};
}

DecodeError dequant_ref(const QTensor& w, OutType out, Reference& ref) {
  std::vector<double> mag;
  if (auto e = decode_tensor(w, ref.value, mag)) return e;
  ref.rows = w.n;
  ref.cols = w.k;
  ref.bound.assign(ref.value.size(), 0.0);
  ref.exact_rounding = true;
  ref.out = out;
  ref.tie_elements = 0;
  return {};
}

}  // namespace qgate
