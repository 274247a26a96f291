#version 450
// Decode mat-vec (M = 1..8 activation rows per dispatch) on quantized activations
// (quant_act.comp): 32 invocations per weight row, two rows per workgroup. Each invocation
// takes 32-element chunks (one q8_1 block, an eighth of a q8_K block) with stride 32: four
// codes per word (formats.glsl wpack4), exact integer dots per 16-element half (dot4:
// the device's packed int8 dot product with QGATE_INT_DOT, integer multiply-adds without),
// then in f32:
//   v = d_w0 * s0 + d_w1 * s1 - (m_w0 * q0 + m_w1 * q1)   (one product when SUB >= 32)
//   acc += d_x * v                   (d_x applied as integer significand, then exponent)
// and a shared-memory tree of 32. Declared depth: ceil(K / 1024) (the chain per
// invocation) + 3 (v) + 2 (scaling) + 5 (tree) + 1.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer A { uint aq[]; };
layout(std430, binding = 2) readonly buffer AD { uint ad[]; };
layout(std430, binding = 3) readonly buffer AS { int as16[]; };
layout(std430, binding = 4) buffer O { uint o[]; };
// rows: activation rows in this dispatch, starting at row0 of the quantized activations
layout(push_constant) uniform P { uint n; uint k; uint rows; uint out_word; uint row0; } pc;

#define TABLE_BINDING 5  // codebook formats: their table (formats.glsl)
#include "common.glsl"
#include "formats.glsl"
#include "q8_term.glsl"

shared float red[64];

void main() {
  uint lid = gl_LocalInvocationID.x, t = lid & 31u;
  uint row = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * 2u + (lid >> 5u);
  bool live = row < pc.n;
  float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  if (live) {
    uint row_byte = row * (pc.k / QK) * BLOCK_BYTES, kw = pc.k / 4u;
    for (uint c = t; c < pc.k / 32u; c += 32u) {
      uint e0 = c * 32u, b = row_byte + (e0 / QK) * BLOCK_BYTES, i0 = e0 % QK;
      uint wq[8];
      for (uint j = 0u; j < 8u; ++j) wq[j] = wpack4(b, i0 + 4u * j);
      WScales ws = w_scales(b, i0);
      for (uint r = 0u; r < 8u; ++r) {
        if (r >= pc.rows) break;
        uint ar = pc.row0 + r, a = ar * kw + e0 / 4u;
        int s0 = dot4(wq[0], aq[a]) + dot4(wq[1], aq[a + 1u]) + dot4(wq[2], aq[a + 2u]) + dot4(wq[3], aq[a + 3u]);
        int s1 = dot4(wq[4], aq[a + 4u]) + dot4(wq[5], aq[a + 5u]) + dot4(wq[6], aq[a + 6u]) + dot4(wq[7], aq[a + 7u]);
        uint h = (ar * pc.k + e0) / 16u;
        acc[r] += q8_term(ws, s0, s1, as16[h], as16[h + 1u], ad[(ar * pc.k + e0) / ABLK]);
      }
    }
  }
#ifdef MUTANT_rows_past_m
  for (uint r = 0u; r < 8u; ++r) {  // planted: every accumulator row written, past M
#else
  for (uint r = 0u; r < pc.rows; ++r) {
#endif
    red[lid] = acc[r];
    barrier();
    for (uint s = 16u; s > 0u; s >>= 1u) {
      if (t < s) red[lid] += red[lid + s];
      barrier();
    }
    if (t == 0u && live) o[pc.out_word + r * pc.n + row] = floatBitsToUint(red[lid]);
    barrier();
  }
}
