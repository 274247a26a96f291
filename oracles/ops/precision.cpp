#include "oracles/ops/precision.hpp"

#include <cmath>

#include "oracles/formats/scalar.hpp"

namespace qgate {

std::string_view act_name(ActQuant a) {
  switch (a) {
    case ActQuant::none: return "f32";
    case ActQuant::q8_1: return "q8_1";
    case ActQuant::q8_K: return "q8_K";
    case ActQuant::fp8_e4m3_token: return "fp8tok";
    case ActQuant::q8_0: return "q8_0";
    case ActQuant::q8_1_s16: return "q8_1s16";
  }
  return "?";
}
std::string_view out_name(OutType o) {
  switch (o) {
    case OutType::f32: return "f32";
    case OutType::f16: return "f16";
    case OutType::bf16: return "bf16";
  }
  return "?";
}
double out_unit_roundoff(OutType o) {
  return o == OutType::f32 ? std::ldexp(1.0, -24) : o == OutType::f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}
double out_half_min_sub(OutType o) {
  // Half the smallest subnormal of the output type: f16 2^-24, bf16 2^-133, f32 2^-149.
  return o == OutType::f16 ? std::ldexp(1.0, -25) : o == OutType::bf16 ? std::ldexp(1.0, -134) : std::ldexp(1.0, -150);
}
double out_max_finite(OutType o) {
  return o == OutType::f32 ? scalar::kF32.max_finite : o == OutType::f16 ? scalar::kF16.max_finite : scalar::kBF16.max_finite;
}
double out_round(double v, OutType o) {
  switch (o) {
    case OutType::f32: return scalar::from_f32(scalar::to_f32(v));
    case OutType::f16: return scalar::from_f16(scalar::to_f16(v));
    case OutType::bf16: return scalar::from_bf16(scalar::to_bf16(v));
  }
  return v;
}

}  // namespace qgate
