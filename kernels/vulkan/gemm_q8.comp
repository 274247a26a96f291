#version 450
// Prefill GEMM on quantized activations: a 32 x 32 output tile (weight rows x activation
// rows) per workgroup of 128; K walks in 32-element chunks. Per chunk the workgroup
// stages the tile's weight codes (wpack4) and scales and its activation codes, scales and
// half sums in shared memory, waits at a barrier, then each invocation takes one weight
// row against 8 activation rows with the same exact integer half-dots and f32 scaling as
// matvec_q8.comp (q8_term.glsl). Rows past N or M are read clamped and never written.
// Declared depth: K / 32 (each output accumulates sequentially over chunks) + 3 (v) + 2
// (scaling) + 1.
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer A { uint aq[]; };
layout(std430, binding = 2) readonly buffer AD { uint ad[]; };
layout(std430, binding = 3) readonly buffer AS { int as16[]; };
layout(std430, binding = 4) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n; uint k; uint m; uint out_word; } pc;

#define TABLE_BINDING 5  // codebook formats: their table (formats.glsl)
#include "common.glsl"
#include "formats.glsl"
#include "q8_term.glsl"

#define TN 32u
#define TM 32u
shared uint s_w[TN * 8u];
shared WScales s_ws[TN];
shared uint s_a[TM * 8u];
shared uint s_ad[TM];
shared int s_as[TM * 2u];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint n0 = gl_WorkGroupID.x * TN, m0 = gl_WorkGroupID.y * TM;
  uint my_n = t & 31u, my_m = (t >> 5u) * 8u;  // one weight row, 8 activation rows
  uint row_bytes = (pc.k / QK) * BLOCK_BYTES, kw = pc.k / 4u;
  float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (uint e0 = 0u; e0 < pc.k; e0 += 32u) {
    uint i0 = e0 % QK, blk = (e0 / QK) * BLOCK_BYTES;
    for (uint u = t; u < TN * 8u; u += 128u) {
      uint r = u >> 3u;
      s_w[u] = wpack4(min(n0 + r, pc.n - 1u) * row_bytes + blk, i0 + 4u * (u & 7u));
      uint ar = min(m0 + r, pc.m - 1u);
      s_a[u] = aq[ar * kw + e0 / 4u + (u & 7u)];
    }
    if (t < TN) s_ws[t] = w_scales(min(n0 + t, pc.n - 1u) * row_bytes + blk, i0);
    if (t < TM) s_ad[t] = ad[(min(m0 + t, pc.m - 1u) * pc.k + e0) / ABLK];
    if (t < 2u * TM) s_as[t] = as16[(min(m0 + (t >> 1u), pc.m - 1u) * pc.k + e0) / 16u + (t & 1u)];
#ifndef MUTANT_missing_barrier  // planted: the tile is used before every invocation has stored its part
    barrier();
#endif
    uint wb = my_n * 8u;
    WScales ws = s_ws[my_n];
    for (uint r = 0u; r < 8u; ++r) {
      uint ab = (my_m + r) * 8u;
      int s0 = dot4(s_w[wb], s_a[ab]) + dot4(s_w[wb + 1u], s_a[ab + 1u]) + dot4(s_w[wb + 2u], s_a[ab + 2u]) +
               dot4(s_w[wb + 3u], s_a[ab + 3u]);
      int s1 = dot4(s_w[wb + 4u], s_a[ab + 4u]) + dot4(s_w[wb + 5u], s_a[ab + 5u]) +
               dot4(s_w[wb + 6u], s_a[ab + 6u]) + dot4(s_w[wb + 7u], s_a[ab + 7u]);
      acc[r] += q8_term(ws, s0, s1, s_as[2u * (my_m + r)], s_as[2u * (my_m + r) + 1u], s_ad[my_m + r]);
    }
    barrier();  // the next chunk overwrites the tile
  }
  uint gn = n0 + my_n;
  if (gn >= pc.n) return;
  for (uint r = 0u; r < 8u; ++r) {
    uint gm = m0 + my_m + r;
    if (gm < pc.m) o[pc.out_word + gm * pc.n + gn] = floatBitsToUint(acc[r]);
  }
}
