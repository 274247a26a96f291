#version 450
// Decode mat-vec (M = 1..MAXM activation rows per dispatch) on quantized activations
// (quant_act.comp): 32 invocations per pair of weight rows, two pairs (four rows) per
// workgroup. Invocation t takes 32-element chunks t, t + 32, t + 64, ... of both rows of
// its pair, four at a time (unrolled, so the loads of all four are in flight together:
// the bytes in flight, not the arithmetic, set the speed of a decode mat-vec), loads the
// activation chunk once for both rows, and decodes each row's chunk with the format's own
// readers straight from the storage buffer (formats.glsl reads `w`): four codes per word
// (wpack8), exact integer dots per 16-element half (dot4: the device's packed int8 dot
// product with QGATE_INT_DOT, integer multiply-adds without), then in f32 (q8_term.glsl):
//   v = d_w0 * s0 + d_w1 * s1 - (m_w0 * q0 + m_w1 * q1)   (one product when SUB >= 32)
//   acc += d_x * v                   (one rounding; exact scaling where it could underflow)
// and a shared-memory tree of 32 per row. Invocation t accumulates its chunks in order, so
// its chain is ceil(K / 1024) long. Declared depth: ceil(K / 1024) + 3 (v) + 2 (scaling)
// + 5 (tree) + 1.
// MAXM: the accumulators kept per row (8; the launch also has a one-row build, MAXM 1,
// for dispatches of one activation row: the same arithmetic in fewer registers).
// Measured on the H200 (docs/VULKAN.md): staging each group of the row through shared
// memory first was faster for q8_0 and q4_0, within 2 points for q4_K and q6_K; two rows
// per invocation halve the activation loads per weight byte.
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

#define ROWS_PER_WG 4u  // launch.cpp and bench_vk.cpp size the grid with kMatvecQ8RowsPerGroup
shared float red[2][64];

void main() {
  uint lid = gl_LocalInvocationID.x, t = lid & 31u, slot = lid >> 5u;
  uint row = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * ROWS_PER_WG + 2u * slot;
  uint chunks = pc.k / 32u, row_bytes = (pc.k / QK) * BLOCK_BYTES;
  uint rb0 = min(row, pc.n - 1u) * row_bytes, rb1 = min(row + 1u, pc.n - 1u) * row_bytes;  // dead rows read the last
  float acc0[MAXM], acc1[MAXM];
  [[unroll]] for (uint r = 0u; r < MAXM; ++r) { acc0[r] = 0.0; acc1[r] = 0.0; }
  for (uint c0 = t; c0 < chunks; c0 += 32u * STEP) {
    [[unroll]] for (uint s = 0u; s < STEP; ++s) {
      uint c = c0 + 32u * s;  // this invocation's chunks, in order
      if (c < chunks) {
        uint e0 = c * 32u, i0 = e0 % QK;
        uint b0 = rb0 + (e0 / QK) * BLOCK_BYTES, b1 = rb1 + (e0 / QK) * BLOCK_BYTES;
        uint wq0[8], wq1[8];
        wpack8(b0, i0, wq0);
        wpack8(b1, i0, wq1);
        WScales ws0 = w_scales(b0, i0), ws1 = w_scales(b1, i0);
        [[unroll]] for (uint r = 0u; r < MAXM; ++r) {  // unrolled: the accumulators stay in registers
          if (r >= pc.rows) break;
          uint ar = pc.row0 + r, a = (ar * pc.k + e0) / 16u;  // uvec4 index: 16 codes
          uvec4 x0 = aq4[a], x1 = aq4[a + 1u];
          int q0 = as16[a], q1 = as16[a + 1u];
          uint dx = ad[(ar * pc.k + e0) / ABLK];
          int s0 = dot4(wq0[0], x0.x) + dot4(wq0[1], x0.y) + dot4(wq0[2], x0.z) + dot4(wq0[3], x0.w);
          int s1 = dot4(wq0[4], x1.x) + dot4(wq0[5], x1.y) + dot4(wq0[6], x1.z) + dot4(wq0[7], x1.w);
          acc0[r] += q8_term(ws0, s0, s1, q0, q1, dx);
          s0 = dot4(wq1[0], x0.x) + dot4(wq1[1], x0.y) + dot4(wq1[2], x0.z) + dot4(wq1[3], x0.w);
          s1 = dot4(wq1[4], x1.x) + dot4(wq1[5], x1.y) + dot4(wq1[6], x1.z) + dot4(wq1[7], x1.w);
          acc1[r] += q8_term(ws1, s0, s1, q0, q1, dx);
        }
      }
    }
  }
  [[unroll]] for (uint r = 0u; r < MAXM; ++r) {
    if (r >= pc.rows) break;
    red[0][lid] = acc0[r];
    red[1][lid] = acc1[r];
    barrier();
    for (uint s = 16u; s > 0u; s >>= 1u) {  // both rows' trees in the same steps
      if (t < s) {
        red[0][lid] += red[0][lid + s];
        red[1][lid] += red[1][lid + s];
      }
      barrier();
    }
    if (t == 0u && row < pc.n) o[pc.out_word + r * pc.n + row] = floatBitsToUint(red[0][lid]);
    if (t == 0u && row + 1u < pc.n) o[pc.out_word + r * pc.n + row + 1u] = floatBitsToUint(red[1][lid]);
    barrier();
  }
}
