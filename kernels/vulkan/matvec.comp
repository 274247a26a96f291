#version 450
// Mat-vec with f32 activations, M = 1..8: one workgroup of 64 per weight row; each thread
// walks K with stride 64 (dequantize once, multiply-add for every activation row), then a
// shared-memory tree. Declared depth: 2*K/64 (fma may be unfused) + 6 (tree) + 1.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n; uint k; uint m; uint out_word; } pc;

#define TABLE_BINDING 3  // codebook formats: their table (formats.glsl)
#include "common.glsl"
#include "formats.glsl"

shared float red[64];

void main() {
  uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (row >= pc.n) return;  // uniform across the workgroup
  uint t = gl_LocalInvocationID.x;
  uint row_byte = row * (pc.k / QK) * BLOCK_BYTES;
  float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (uint e = t; e < pc.k; e += 64u) {
    uint b = row_byte + (e / QK) * BLOCK_BYTES, i = e % QK, j = i / SUB;
#ifdef VALUE_BITS_EXACT
    float wv = uintBitsToFloat(value_bits(b, i));  // one correct rounding, no operand flushed
#else
    float wv = dsub(b, j) * qvalue(b, i) - msub(b, j);
#endif
    for (uint r = 0u; r < pc.m; ++r) acc[r] = fma(wv, x[r * pc.k + e], acc[r]);
  }
#ifdef MUTANT_rows_past_m
  for (uint r = 0u; r < 8u; ++r) {  // planted: every accumulator row written, past M
#else
  for (uint r = 0u; r < pc.m; ++r) {
#endif
    red[t] = acc[r];
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1u) {
      if (t < s) red[t] += red[t + s];
      barrier();
    }
    if (t == 0u) o[pc.out_word + r * pc.n + row] = floatBitsToUint(red[0]);
    barrier();
  }
}
