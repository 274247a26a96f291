#include "oracles/ops/quantize_act.hpp"

#include <cmath>
#include <stdexcept>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/geometry.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate {
namespace {

// Correctly rounded f32 result of an exact double expression whose double evaluation
// is itself innocuous (a single f32 op: 53 >= 2*24+2, so double then f32 equals f32).
double f32(double v) { return scalar::from_f32(scalar::to_f32(v)); }

// Window, in f32 ulps of t, inside which a half-integer boundary counts as a tie.
constexpr double kTieUlps = 4.0;
double f32_ulp(double t) {
  if (t == 0) return std::ldexp(1.0, -149);
  int e;
  std::frexp(t, &e);
  return std::ldexp(1.0, std::max(e - 24, -149));
}
bool near_half(double t) {
  const double frac = std::fabs(t - std::trunc(t));
  return std::fabs(frac - 0.5) <= kTieUlps * f32_ulp(t);
}

// q8_1 (36-byte blocks: fp16 d, fp16 s, 32 codes) or, with_sum false, q8_0 (34 bytes:
// fp16 d, 32 codes); both as ggml's reference quantizers.
void quantize_q8_row(const float* x, int64_t k, bool with_sum, uint8_t* out, double* val, double* tie,
                     int64_t& ties, std::string& error) {
  const int64_t bytes = with_sum ? block::q8_1::bytes : block::q8_0::bytes, qs = with_sum ? 4 : 2;
  const char* name = with_sum ? "q8_1" : "q8_0";
  for (int64_t b = 0; b < k / 32; ++b) {
    const float* xb = x + b * 32;
    double amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(static_cast<double>(xb[i])));
    const double d = f32(amax / 127.0);
    const uint16_t d16 = scalar::to_f16(d);
    const double dq = scalar::from_f16(d16);
    if (!std::isfinite(dq) && error.empty())
      error = std::string(name) + " activation scale overflows fp16 (block amax " + std::to_string(amax) + " > 65504*127)";
    uint8_t* blk = out + b * bytes;
    le::put16(blk, d16);
    int sum = 0;
    for (int i = 0; i < 32; ++i) {
      int q = 0;
      double t = 0;
      if (d != 0) {
        t = f32(static_cast<double>(xb[i]) / d);
        q = static_cast<int>(std::round(t));  // roundf: half away from zero
      }
      blk[qs + i] = static_cast<uint8_t>(static_cast<int8_t>(q));
      sum += q;
      val[b * 32 + i] = dq * q;
      const bool amb = d != 0 && near_half(static_cast<double>(xb[i]) / d);
      tie[b * 32 + i] = amb ? std::fabs(dq) : 0.0;
      ties += amb;
    }
    if (with_sum) le::put16(blk + 2, scalar::to_f16(f32(static_cast<double>(sum) * d)));
  }
}

void quantize_q8_K_row(const float* x, int64_t k, uint8_t* out, double* val, double* tie, int64_t& ties,
                       std::string& error) {
  for (int64_t b = 0; b < k / 256; ++b) {
    const float* xb = x + b * 256;
    double amax = 0, max = 0;
    for (int i = 0; i < 256; ++i) {
      const double ax = std::fabs(static_cast<double>(xb[i]));
      if (ax > amax) { amax = ax; max = xb[i]; }
    }
    uint8_t* blk = out + b * block::q8_K::bytes;
    if (amax == 0) {
      for (int i = 0; i < block::q8_K::bytes; ++i) blk[i] = 0;
      for (int i = 0; i < 256; ++i) { val[b * 256 + i] = 0; tie[b * 256 + i] = 0; }
      continue;
    }
    const double iscale = f32(-127.0 / max);
    if (!std::isfinite(iscale)) {  // ggml asserts here; qgate refuses the input instead
      if (error.empty()) error = "q8_K activation iscale = -127/max overflows f32 (|max| = " + std::to_string(amax) + ")";
      for (int i = 0; i < block::q8_K::bytes; ++i) blk[i] = 0;
      for (int i = 0; i < 256; ++i) { val[b * 256 + i] = 0; tie[b * 256 + i] = 0; }
      continue;
    }
    const double d = f32(1.0 / iscale);
    le::put32(blk, scalar::to_f32(d));
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) {
        const int e = 16 * j + i;
        const double t = f32(iscale * xb[e]);
        int q = static_cast<int>(std::nearbyint(t));  // nearest_int: ties to even
        if (q > 127) q = 127;
        blk[4 + e] = static_cast<uint8_t>(static_cast<int8_t>(q));
        sum += q;
        val[b * 256 + e] = d * q;
        const bool amb = near_half(iscale * static_cast<double>(xb[e]));
        tie[b * 256 + e] = amb ? std::fabs(d) : 0.0;
        ties += amb;
      }
      le::put16(blk + 260 + 2 * j, static_cast<uint16_t>(static_cast<int16_t>(sum)));
    }
  }
}

void quantize_fp8_row(const float* x, int64_t k, float& scale_out, uint8_t* codes, double* val, double* tie,
                      int64_t& ties) {
  double amax = 0;
  for (int64_t i = 0; i < k; ++i) amax = std::max(amax, std::fabs(static_cast<double>(x[i])));
  const double scale = f32(amax / 448.0);
  scale_out = static_cast<float>(scale);
  for (int64_t i = 0; i < k; ++i) {
    uint8_t c = 0;
    double amb_step = 0;
    if (scale != 0) {
      const double t = f32(static_cast<double>(x[i]) / scale);
      c = scalar::to_e4m3fn_sat(t);
      // Tie: the exact quotient sits within a few f32 ulps of the midpoint between c and a neighbour.
      const double exact = static_cast<double>(x[i]) / scale;
      const double v = scalar::from_e4m3fn(c);
      for (int dir : {-1, 1}) {
        const int nb = (c & 0x80 ? -dir : dir) + (c & 0x7F);
        if (nb < 0 || nb > 0x7E) continue;
        const double w = scalar::from_e4m3fn(static_cast<uint8_t>((c & 0x80) | nb));
        if (std::fabs(exact - 0.5 * (v + w)) <= kTieUlps * f32_ulp(exact)) amb_step = std::fabs(w - v) * scale;
      }
    }
    codes[i] = c;
    val[i] = scale * scalar::from_e4m3fn(c);
    tie[i] = amb_step;
    ties += amb_step != 0;
  }
}

}  // namespace

int64_t act_block(ActQuant a) {
  switch (a) {
    case ActQuant::q8_1: case ActQuant::q8_1_s16: case ActQuant::q8_0: return 32;
    case ActQuant::q8_K: return 256;
    default: return 1;
  }
}

QuantizedActs quantize_act_ref(ActQuant a, const float* x, int64_t m, int64_t k) {
  if (k % act_block(a) != 0) throw std::invalid_argument("activation row length is not a multiple of the block");
  QuantizedActs r;
  r.kind = a;
  r.m = m;
  r.k = k;
  r.value.assign(static_cast<size_t>(m * k), 0.0);
  r.tie_step.assign(r.value.size(), 0.0);
  switch (a) {
    case ActQuant::none:
      for (int64_t i = 0; i < m * k; ++i) r.value[i] = x[i];
      break;
    case ActQuant::q8_1: case ActQuant::q8_1_s16: case ActQuant::q8_0: {
      const bool sum = a != ActQuant::q8_0;
      const int64_t bytes = sum ? block::q8_1::bytes : block::q8_0::bytes;
      r.blocks.resize(static_cast<size_t>(m * (k / 32) * bytes));
      for (int64_t row = 0; row < m; ++row)
        quantize_q8_row(x + row * k, k, sum, r.blocks.data() + row * (k / 32) * bytes, r.value.data() + row * k,
                        r.tie_step.data() + row * k, r.ties, r.error);
      break;
    }
    case ActQuant::q8_K:
      r.blocks.resize(static_cast<size_t>(m * (k / block::q8_K::elems) * block::q8_K::bytes));
      for (int64_t row = 0; row < m; ++row)
        quantize_q8_K_row(x + row * k, k, r.blocks.data() + row * (k / block::q8_K::elems) * block::q8_K::bytes, r.value.data() + row * k,
                          r.tie_step.data() + row * k, r.ties, r.error);
      break;
    case ActQuant::fp8_e4m3_token:
      r.row_scale.resize(static_cast<size_t>(m));
      r.fp8.resize(static_cast<size_t>(m * k));
      for (int64_t row = 0; row < m; ++row)
        quantize_fp8_row(x + row * k, k, r.row_scale[row], r.fp8.data() + row * k, r.value.data() + row * k,
                         r.tie_step.data() + row * k, r.ties);
      break;
  }
  return r;
}

}  // namespace qgate
