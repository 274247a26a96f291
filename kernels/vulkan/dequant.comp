#version 450
// Dequantize blocks to f32 (one element per invocation) or f16 (two per invocation, one
// output word). x = dsub * q - msub rounds once in f32 (the product is exact); for f16 the
// subtraction is rounded to odd first, so the final rounding is correct.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n_elems; uint out_word; } pc;

#include "common.glsl"
#include "formats.glsl"

float value(uint e, bool odd) {
  uint b = (e / QK) * BLOCK_BYTES, i = e % QK, j = i / SUB;
  float a = dsub(b, j) * float(qcode(b, i));
  return odd ? sub_round_odd(a, msub(b, j)) : a - msub(b, j);
}

void main() {
  uint g = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#ifdef OUT_F16
  uint e = 2u * g;
  if (e >= pc.n_elems) return;
  uint lo = f32_to_f16_rne(value(e, true));
  uint word = pc.out_word + g;
  if (e + 1u < pc.n_elems) {
    o[word] = lo | (f32_to_f16_rne(value(e + 1u, true)) << 16u);
  } else {
    o[word] = (o[word] & 0xFFFF0000u) | lo;  // the upper half belongs to the redzone
  }
#else
  if (g >= pc.n_elems) return;
#ifdef VALUE_BITS_EXACT
  o[pc.out_word + g] = value_bits((g / QK) * BLOCK_BYTES, g % QK);
#else
  o[pc.out_word + g] = floatBitsToUint(value(g, false));
#endif
#endif
}
