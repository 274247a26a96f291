#version 450
// Dequantize blocks to f32 (one element per invocation) or f16 (two per invocation, one
// output word). x = dsub * q - msub rounds once in f32 (the product is exact); for f16 the
// subtraction is rounded to odd first, so the final rounding is correct. Formats whose
// product is not exact in f32 or may be an f32 denormal (fp8, q8_K, mxfp4) give the
// correctly rounded bits in integer arithmetic instead (VALUE_BITS_EXACT, VALUE_F16_BITS_EXACT).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n_elems; uint out_word; } pc;

#define TABLE_BINDING 2  // codebook formats: their table (formats.glsl)
#include "common.glsl"
#include "formats.glsl"

float value(uint e, bool odd) {
  uint b = (e / QK) * BLOCK_BYTES, i = e % QK, j = i / SUB;
  float a = dsub(b, j) * qvalue(b, i);
  return odd ? sub_round_odd(a, msub(b, j)) : a - msub(b, j);
}

uint f32_bits(uint e) {
#ifdef VALUE_BITS_EXACT
  return value_bits((e / QK) * BLOCK_BYTES, e % QK);
#else
  return floatBitsToUint(value(e, false));
#endif
}

uint f16_bits(uint e) {
#ifdef VALUE_F16_BITS_EXACT
  return value_f16_bits((e / QK) * BLOCK_BYTES, e % QK);
#else
  return f32_to_f16_rne(value(e, true));
#endif
}

void main() {
  uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#ifdef OUT_F16
  uint e = 2u * g;
  if (e >= pc.n_elems) return;
  uint lo = f16_bits(e);
  uint word = pc.out_word + g;
  if (e + 1u < pc.n_elems) {
    o[word] = lo | (f16_bits(e + 1u) << 16u);
  } else {
    o[word] = (o[word] & 0xFFFF0000u) | lo;  // the upper half belongs to the redzone
  }
#else
  if (g >= pc.n_elems) return;
  o[pc.out_word + g] = f32_bits(g);
#endif
}
