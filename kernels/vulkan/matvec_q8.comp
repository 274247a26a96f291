#version 450
// Decode mat-vec (M = 1..MAXM activation rows per dispatch) on quantized activations
// (quant_act.comp): 32 invocations per weight row, two rows per workgroup. Invocation t
// takes 32-element chunks t, t + 32, t + 64, ... of its row, four at a time (unrolled, so
// the loads of all four are in flight together: the bytes in flight, not the arithmetic,
// set the speed of a decode mat-vec), and decodes each with the format's own readers
// straight from the storage buffer (formats.glsl reads `w`): four codes per word
// (wpack8), exact integer dots per 16-element half (dot4: the device's packed int8 dot
// product with QGATE_INT_DOT, integer multiply-adds without), then in f32 (q8_term.glsl):
//   v = d_w0 * s0 + d_w1 * s1 - (m_w0 * q0 + m_w1 * q1)   (one product when SUB >= 32)
//   acc += d_x * v                   (one rounding; exact scaling where it could underflow)
// and a shared-memory tree of 32. Invocation t accumulates its chunks in order, so its
// chain is ceil(K / 1024) long. Declared depth: ceil(K / 1024) + 3 (v) + 2 (scaling) + 5
// (tree) + 1.
// MAXM: the accumulators kept (8; the launch also has a one-row build, MAXM 1, for
// dispatches of one activation row: the same arithmetic in fewer registers).
// Measured on the H200 against staging each group of the row through shared memory first
// (docs/VULKAN.md): faster for q8_0 and q4_0, within 2 points for q4_K and q6_K, simpler;
// and against two weight rows per invocation sharing the activation loads: slower at
// every shape (q4_K 14336 x 4096 42% -> 37% of the stream, 4096 x 14336 37% -> 27%).
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 0) readonly buffer W4 { uvec4 w4[]; };  // the same weights, 16 bytes a load
#define QGATE_W4
layout(std430, binding = 1) readonly buffer A { uvec4 aq4[]; };
layout(std430, binding = 2) readonly buffer AD { uint ad[]; };
layout(std430, binding = 3) readonly buffer AS { int as16[]; };
layout(std430, binding = 4) buffer O { uint o[]; };
// rows: activation rows in this dispatch, starting at row0 of the quantized activations
layout(push_constant) uniform P { uint n; uint k; uint rows; uint out_word; uint row0; } pc;

#define TABLE_BINDING 5  // codebook formats: their table (formats.glsl)
#ifndef MAXM
#define MAXM 8u
#endif
#define STEP 4u  // chunks per invocation per step

#include "common.glsl"
#include "formats.glsl"
#include "q8_term.glsl"

#define ROWS_PER_WG 2u  // launch.cpp and bench_vk.cpp size the grid with kMatvecQ8RowsPerGroup
shared float red[64];

void main() {
  uint lid = gl_LocalInvocationID.x, t = lid & 31u, slot = lid >> 5u;
  uint row = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * ROWS_PER_WG + slot;
  bool live = row < pc.n;
  uint chunks = pc.k / 32u;
  uint row_byte = min(row, pc.n - 1u) * (pc.k / QK) * BLOCK_BYTES;  // a dead slot reads the last row
  float acc[MAXM];
  [[unroll]] for (uint r = 0u; r < MAXM; ++r) acc[r] = 0.0;
#ifdef MUTANT_single_sweep
  for (uint c0 = t; c0 < min(chunks, 32u * STEP); c0 += 32u * STEP) {  // planted: one pass over K only
#else
  for (uint c0 = t; c0 < chunks; c0 += 32u * STEP) {
#endif
    [[unroll]] for (uint s = 0u; s < STEP; ++s) {
      uint c = c0 + 32u * s;  // this invocation's chunks, in order
      if (live && c < chunks) {
        uint e0 = c * 32u;
        uint b = row_byte + (e0 / QK) * BLOCK_BYTES, i0 = e0 % QK;
        uint wq[8];
        wpack8(b, i0, wq);
        WScales ws = w_scales(b, i0);
        [[unroll]] for (uint r = 0u; r < MAXM; ++r) {  // unrolled: acc[r] stays in a register
          if (r >= pc.rows) break;
          uint ar = pc.row0 + r, a = (ar * pc.k + e0) / 16u;  // uvec4 index: 16 codes
          uvec4 x0 = aq4[a], x1 = aq4[a + 1u];
          int s0 = dot4(wq[0], x0.x) + dot4(wq[1], x0.y) + dot4(wq[2], x0.z) + dot4(wq[3], x0.w);
          int s1 = dot4(wq[4], x1.x) + dot4(wq[5], x1.y) + dot4(wq[6], x1.z) + dot4(wq[7], x1.w);
          acc[r] += q8_term(ws, s0, s1, as16[a], as16[a + 1u], ad[(ar * pc.k + e0) / ABLK]);
        }
      }
    }
  }
  [[unroll]] for (uint r = 0u; r < MAXM; ++r) {
    if (r >= pc.rows) break;
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
