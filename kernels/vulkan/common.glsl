// Shared by every qgate compute shader: f32 denormals preserved where the device can be
// asked to (QGATE_DENORM_PRESERVE: SPV_KHR_float_controls DenormPreserve 32; a block scale
// like mxfp4's 2^-128 is a denormal, and a driver that flushes it computes zeros, as the
// H200's does unless asked; each shader is built both ways and the runtime picks by
// shaderDenormPreserveFloat32), byte access into uint-packed storage, fp16 decode,
// and the exact output conversions (round-to-odd subtraction, f32 -> f16 round to nearest
// even in integer arithmetic: packHalf2x16's rounding is not pinned by the spec).

#ifdef QGATE_DENORM_PRESERVE
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);  // DenormPreserve 32
#endif

uint rb(uint off) { return (w[off >> 2] >> ((off & 3u) * 8u)) & 0xFFu; }
uint ru16(uint off) { return rb(off) | (rb(off + 1u) << 8u); }
uint ru32(uint off) { return ru16(off) | (ru16(off + 2u) << 16u); }
int rs8(uint off) { return int(rb(off) << 24u) >> 24; }
float rf16(uint off) { return unpackHalf2x16(ru16(off)).x; }

// a - b rounded to odd in f32 (both exact f32 values): a later rounding to a type with at
// most 22 fraction bits is then the correctly rounded result of the exact difference.
float sub_round_odd(float a, float b) {
  precise float s = a - b;
  if (isinf(s)) return s;  // overflow: TwoSum would turn it into NaN
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (-b - bb);  // TwoSum: s + e == a - b exactly
  uint bits = floatBitsToUint(s);
  if (e != 0.0 && (bits & 1u) == 0u) bits = ((e > 0.0) == (s > 0.0)) ? bits + 1u : bits - 1u;
  return uintBitsToFloat(bits);
}

uint f32_to_f16_rne(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16u) & 0x8000u;
  uint a = x & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return sign | (a > 0x7F800000u ? 0x7E00u : 0x7C00u);
  if (a >= 0x477FF000u) return sign | 0x7C00u;               // >= 65520 rounds to Inf
  if (a < 0x38800000u) return sign | uint(roundEven(abs(f) * 16777216.0));  // f16 subnormal: quantum 2^-24
  a += 0x00000FFFu + ((a >> 13u) & 1u);
  return sign | ((a - 0x38000000u) >> 13u);
}
