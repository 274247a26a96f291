#include "oracles/ops/contract.hpp"

#include <algorithm>
#include <cmath>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/geometry.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate {
namespace {

// q8_1_s16: the offset c of every element (weight value = a - c), for the formats whose
// dot products apply an offset per 32 elements through the activation block's stored
// sum: c is minus the value the element has with its code set to 0 (a = d * 0 there).
DecodeError offsets_per32(const QTensor& w, std::vector<double>& c) {
  const FormatInfo& f = *w.fmt;
  c.assign(static_cast<size_t>(w.n * w.k), 0.0);
  if (f.id == FormatId::q8_0) return {};  // no offset: the sum is never read
  static constexpr FormatId kWithOffset[] = {FormatId::q4_0, FormatId::q4_1, FormatId::q5_0,
                                            FormatId::q5_1, FormatId::q4_K, FormatId::q5_K};
  if (std::find(std::begin(kWithOffset), std::end(kWithOffset), f.id) == std::end(kWithOffset))
    return {"matmul: activations q8_1s16 apply an offset per 32 elements through the stored block sum; " +
            std::string(f.name) + " has no such offset (formats with one: q4_0 q4_1 q5_0 q5_1 q4_K q5_K, and q8_0)"};
  std::vector<uint8_t> zeroed(static_cast<size_t>(f.block_bytes));
  std::vector<double> v(static_cast<size_t>(f.block_elems)), mag(v.size());
  BlockFields bf;
  for (size_t b = 0; b * f.block_bytes < w.bytes.size(); ++b) {
    f.unpack_block(w.bytes.data() + b * f.block_bytes, bf);
    std::fill(bf.codes.begin(), bf.codes.end(), 0);
    f.pack_block(bf, zeroed.data());
    if (auto e = f.decode_block(zeroed.data(), v.data(), mag.data())) return e;
    for (int i = 0; i < f.block_elems; ++i) c[b * f.block_elems + i] = -v[i];
  }
  return {};
}

// Spacing of binary16 values at |v| (subnormal spacing below the normal range).
double f16_ulp(double v) {
  if (v < std::ldexp(1.0, -14)) return std::ldexp(1.0, -24);
  int e;
  std::frexp(v, &e);
  return std::ldexp(1.0, e - 11);
}

}  // namespace

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
  // q8_1s16: the per-element offsets and, per activation block, its stored sum s.
  const bool stored_sum = p.act == ActQuant::q8_1_s16;
  std::vector<double> off;
  if (stored_sum)
    if (auto e = offsets_per32(w, off)) return e;
  const int64_t depth = p.depth(w.k) + 4;
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
      auto add_product = [&](double a, double b) {
        const double t = a * b;
        add(t);
        add(std::fma(a, b, -t));
      };
      for (int64_t kk = 0; kk < w.k; ++kk) {
        add_product(stored_sum ? wr[kk] + off[n * w.k + kk] : wr[kk], xr[kk]);  // a = value + c, exact in fp64
        s += mr[kk] * std::fabs(xr[kk]);
        tie += mr[kk] * tr[kk];  // mag >= |w| also covers the neighbour code's roundings
        xabs += std::fabs(xr[kk]);
      }
      if (stored_sum) {
        // - c * s per block, c constant over the block (checked), s = the stored fp16 sum.
        for (int64_t b = 0; b < w.k / 32; ++b) {
          const double c = off[n * w.k + b * 32];
          for (int i = 1; i < 32; ++i)
            if (off[n * w.k + b * 32 + i] != c)
              return {"matmul: q8_1s16 needs one offset per 32 elements; " + std::string(w.fmt->name) + " row " +
                      std::to_string(n) + " block " + std::to_string(b) + " has several"};
          if (c == 0) continue;
          const uint8_t* blk = xa.blocks.data() + (i * (w.k / 32) + b) * block::q8_1::bytes;
          const double sb = scalar::from_f16(le::u16(blk + 2)), dq = scalar::from_f16(le::u16(blk));
          add_product(-c, sb);
          s += std::fabs(c) * std::fabs(sb);
          // A tied code moves the kernel's s by d per tie plus a different fp16 rounding of it.
          int ties = 0;
          for (int e = 0; e < 32; ++e) ties += tr[b * 32 + e] != 0;
          if (ties) tie += std::fabs(c) * (2 * ties * std::fabs(dq) + 2 * f16_ulp(std::fabs(sb) + ties * std::fabs(dq)));
        }
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
