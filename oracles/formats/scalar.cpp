#include "oracles/formats/scalar.hpp"

#include <cmath>
#include <limits>

namespace qgate::scalar {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A binary float with `ebits` exponent bits, `mbits` fraction bits and IEEE bias.
double decode_ieee_like(uint32_t bits, int ebits, int mbits, bool has_inf_nan) {
  const uint32_t sign = (bits >> (ebits + mbits)) & 1u;
  const uint32_t exp = (bits >> mbits) & ((1u << ebits) - 1u);
  const uint32_t frac = bits & ((1u << mbits) - 1u);
  const int bias = (1 << (ebits - 1)) - 1;
  double mag;
  if (has_inf_nan && exp == (1u << ebits) - 1u) {
    mag = frac ? kNaN : kInf;
  } else if (exp == 0) {
    mag = std::ldexp(static_cast<double>(frac), 1 - bias - mbits);
  } else {
    mag = std::ldexp(static_cast<double>(frac | (1u << mbits)), static_cast<int>(exp) - bias - mbits);
  }
  return sign ? -mag : mag;
}
}  // namespace

double from_f16(uint16_t b) { return decode_ieee_like(b, 5, 10, true); }
double from_bf16(uint16_t b) { return decode_ieee_like(b, 8, 7, true); }
double from_f32(uint32_t b) { return decode_ieee_like(b, 8, 23, true); }
double from_e5m2(uint8_t b) { return decode_ieee_like(b, 5, 2, true); }

double from_e4m3fn(uint8_t b) {
  if ((b & 0x7F) == 0x7F) return kNaN;
  return decode_ieee_like(b, 4, 3, false);
}

double from_e8m0(uint8_t b) {
  if (b == 0xFF) return kNaN;
  return std::ldexp(1.0, static_cast<int>(b) - 127);
}

double from_e2m1(uint8_t code) {
  // 0bSEEM, bias 1: magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 (OCP MX v1.0 / ml_dtypes float4_e2m1fn).
  return decode_ieee_like(code & 0xF, 2, 1, false);
}

double from_ue4m3(uint8_t b) {
  if (b == 0x7F) return 0.0;
  const int e = (b >> 3) & 0xF, m = b & 7;
  return e == 0 ? std::ldexp(static_cast<double>(m), -9) : std::ldexp(8.0 + m, e - 10);
}

double round_to_binary(double v, int mbits, int emin) {
  if (v == 0 || !std::isfinite(v)) return v;
  int e;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  int exp = e - 1;
  if (exp < emin) exp = emin;  // subnormal range: fixed quantum
  const double quantum = std::ldexp(1.0, exp - mbits);
  const double scaled = v / quantum;  // exact: power-of-two division
  return std::nearbyint(scaled) * quantum;  // default FE_TONEAREST = ties to even
}

namespace {
// Encode an already-representable finite value into an IEEE-like bit field.
uint32_t encode_ieee_like(double r, int ebits, int mbits) {
  uint32_t sign = std::signbit(r) ? 1u : 0u;
  double a = std::fabs(r);
  const int bias = (1 << (ebits - 1)) - 1;
  uint32_t out;
  if (std::isinf(a)) {
    out = ((1u << ebits) - 1u) << mbits;
  } else if (std::isnan(a)) {
    out = (((1u << ebits) - 1u) << mbits) | (1u << (mbits - 1));
  } else if (a == 0) {
    out = 0;
  } else {
    int e;
    std::frexp(a, &e);
    int exp = e - 1;
    if (exp < 1 - bias) {  // subnormal
      out = static_cast<uint32_t>(std::ldexp(a, bias - 1 + mbits));
    } else {
      const uint32_t frac = static_cast<uint32_t>(std::ldexp(a, mbits - exp)) - (1u << mbits);
      out = (static_cast<uint32_t>(exp + bias) << mbits) | frac;
    }
  }
  return out | (sign << (ebits + mbits));
}

uint32_t to_ieee_like(double v, int ebits, int mbits, double max_finite, bool saturate) {
  const int bias = (1 << (ebits - 1)) - 1;
  double r = std::isnan(v) ? v : round_to_binary(v, mbits, 1 - bias);
  if (std::fabs(r) > max_finite) {
    r = saturate ? std::copysign(max_finite, v) : std::copysign(kInf, v);
  }
  return encode_ieee_like(r, ebits, mbits);
}
}  // namespace

uint16_t to_f16(double v) { return static_cast<uint16_t>(to_ieee_like(v, 5, 10, 65504.0, false)); }
uint16_t to_bf16(double v) {
  return static_cast<uint16_t>(to_ieee_like(v, 8, 7, kBF16.max_finite, false));
}
uint32_t to_f32(double v) { return to_ieee_like(v, 8, 23, kF32.max_finite, false); }
uint8_t to_e5m2_sat(double v) {
  if (std::isnan(v)) return 0x7F;
  return static_cast<uint8_t>(to_ieee_like(v, 5, 2, 57344.0, true));
}
uint8_t to_e4m3fn_sat(double v) {
  if (std::isnan(v)) return 0x7F;
  // E4M3fn has no Inf: exponent field 15 is an ordinary binade up to 448 (S.1111.110).
  return static_cast<uint8_t>(to_ieee_like(v, 4, 3, 448.0, true));
}

}  // namespace qgate::scalar
