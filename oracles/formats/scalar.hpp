// Exact decoding of the small floating-point and integer scalar types that quantized
// formats store, and correct rounding of a double into them. This is oracle code: it
// works on integer bit fields and std::ldexp only, never on hardware conversions, so a
// kernel's own conversion (F16C, _Float16, __half) is checked against it, not reused.
#pragma once
#include <cstdint>

namespace qgate::scalar {

double from_f16(uint16_t bits);      // IEEE binary16; Inf/NaN decode to Inf/NaN
double from_bf16(uint16_t bits);     // bfloat16 (top half of binary32)
double from_f32(uint32_t bits);      // binary32, exact
double from_e4m3fn(uint8_t bits);    // OCP FP8 E4M3 "fn": no Inf, NaN only S.1111.111
double from_e5m2(uint8_t bits);      // OCP FP8 E5M2: IEEE-style Inf/NaN
double from_e8m0(uint8_t bits);      // OCP MX scale 2^(e-127); 0xFF is NaN
double from_e2m1(uint8_t code4);     // OCP MX FP4 element, codes 0..15
// ggml's UE4M3 (the nvfp4 scale): 4 exponent bits (bias 7) and 3 mantissa bits below bit 7,
// which is ignored; 0x7F (E4M3's NaN) decodes as 0 while 0xFF decodes as 480, as
// ggml_ue4m3_to_fp32 has it. Always finite.
double from_ue4m3(uint8_t bits);

// Round-to-nearest-even of an exact double into the target type's bit pattern.
// Overflow goes to Inf where the type has one (f16, bf16, e5m2); the saturating
// fp8 variants clamp to the largest finite value instead (what quantizers do).
uint16_t to_f16(double v);
uint16_t to_bf16(double v);
uint32_t to_f32(double v);
uint8_t to_e4m3fn_sat(double v);
uint8_t to_e5m2_sat(double v);

// Unit roundoff and the largest finite value of each output type.
struct TypeTraits {
  const char* name;
  int mantissa_bits;   // explicit fraction bits
  int min_exp;         // exponent of the smallest normal
  double max_finite;
};
inline constexpr TypeTraits kF32{"f32", 23, -126, 3.4028234663852886e38};
inline constexpr TypeTraits kF16{"f16", 10, -14, 65504.0};
inline constexpr TypeTraits kBF16{"bf16", 7, -126, 3.3895313892515355e38};

// Generic: round v to a binary format with `mbits` fraction bits, smallest normal
// exponent `emin`, RNE, no overflow handling (callers clamp). Exact, uses ldexp/frexp.
double round_to_binary(double v, int mbits, int emin);

}  // namespace qgate::scalar
