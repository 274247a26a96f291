#version 450
// Decode mat-vec (M = 1..8 activation rows per dispatch) on quantized activations
// (quant_act.comp): 32 invocations per weight row, two rows per workgroup. The row is
// walked in groups of 1024 elements: the group's weight bytes are first copied, word by
// consecutive word (coalesced), into shared memory, then invocation t decodes 32-element
// chunk t of the group from there with the format's own readers (formats.glsl reads `w`,
// here the shared copy; three independent 16-byte loads per invocation cover a group
// of any format, so all are in flight at once): four codes per word (wpack4), exact integer dots per 16-element
// half (dot4: the device's packed int8 dot product with QGATE_INT_DOT, integer
// multiply-adds without), then in f32 (q8_term.glsl):
//   v = d_w0 * s0 + d_w1 * s1 - (m_w0 * q0 + m_w1 * q1)   (one product when SUB >= 32)
//   acc += d_x * v                   (d_x applied as integer significand, then exponent)
// and a shared-memory tree of 32. Declared depth: ceil(K / 1024) (the chain per
// invocation) + 3 (v) + 2 (scaling) + 5 (tree) + 1.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer WG { uvec4 wg4[]; };  // the weights, 16 bytes a load
layout(std430, binding = 1) readonly buffer A { uvec4 aq4[]; };
layout(std430, binding = 2) readonly buffer AD { uint ad[]; };
layout(std430, binding = 3) readonly buffer AS { int as16[]; };
layout(std430, binding = 4) buffer O { uint o[]; };
// rows: activation rows in this dispatch, starting at row0 of the quantized activations
layout(push_constant) uniform P { uint n; uint k; uint rows; uint out_word; uint row0; } pc;

// The formats' block readers take byte offsets into `w`: here, per row slot, one group's
// weight bytes (at most 1024 elements' blocks, from the 16-byte boundary below their
// start, + the words a reader of an unaligned word may touch past the end).
#define GROUP 1024u
#define SEG_WORDS 288u  // >= 70 * 4 + 2: q8_0's 1088 bytes from any 16-byte offset
shared uint w[2u * SEG_WORDS];

#define TABLE_BINDING 5  // codebook formats: their table (formats.glsl)
#include "common.glsl"
#include "formats.glsl"
#include "q8_term.glsl"

shared float red[64];

void main() {
  uint lid = gl_LocalInvocationID.x, t = lid & 31u, slot = lid >> 5u;
  uint row = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * 2u + slot;
  bool live = row < pc.n;
  uint nb = pc.k / QK;
  uint row_byte = min(row, pc.n - 1u) * nb * BLOCK_BYTES;  // a dead slot copies the last row
  float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (uint g0 = 0u; g0 < pc.k; g0 += GROUP) {
    uint seg = row_byte + (g0 / QK) * BLOCK_BYTES;
    uint bytes = min(GROUP / QK, nb - g0 / QK) * BLOCK_BYTES;
    uint first = seg >> 4, quads = ((seg & 15u) + bytes + 15u) >> 4;  // <= 70 (q8_0)
    uvec4 v0 = t < quads ? wg4[first + t] : uvec4(0u);
    uvec4 v1 = t + 32u < quads ? wg4[first + t + 32u] : uvec4(0u);
    uvec4 v2 = t + 64u < quads ? wg4[first + t + 64u] : uvec4(0u);
    uint s0 = slot * SEG_WORDS;
    if (t < quads) { w[s0 + 4u * t] = v0.x; w[s0 + 4u * t + 1u] = v0.y; w[s0 + 4u * t + 2u] = v0.z; w[s0 + 4u * t + 3u] = v0.w; }
    if (t + 32u < quads) { uint q = s0 + 4u * (t + 32u); w[q] = v1.x; w[q + 1u] = v1.y; w[q + 2u] = v1.z; w[q + 3u] = v1.w; }
    if (t + 64u < quads) { uint q = s0 + 4u * (t + 64u); w[q] = v2.x; w[q + 1u] = v2.y; w[q + 2u] = v2.z; w[q + 3u] = v2.w; }
    barrier();
    uint c = g0 / 32u + t;  // this invocation's chunk
    if (live && c < pc.k / 32u) {
      uint e0 = c * 32u;
      uint b = slot * SEG_WORDS * 4u + (seg & 15u) + ((e0 - g0) / QK) * BLOCK_BYTES, i0 = e0 % QK;
      uint wq[8];
      for (uint j = 0u; j < 8u; ++j) wq[j] = wpack4(b, i0 + 4u * j);
      WScales ws = w_scales(b, i0);
      for (uint r = 0u; r < 8u; ++r) {
        if (r >= pc.rows) break;
        uint ar = pc.row0 + r, a = (ar * pc.k + e0) / 16u;  // uvec4 index: 16 codes
        uvec4 x0 = aq4[a], x1 = aq4[a + 1u];
        int s0 = dot4(wq[0], x0.x) + dot4(wq[1], x0.y) + dot4(wq[2], x0.z) + dot4(wq[3], x0.w);
        int s1 = dot4(wq[4], x1.x) + dot4(wq[5], x1.y) + dot4(wq[6], x1.z) + dot4(wq[7], x1.w);
        acc[r] += q8_term(ws, s0, s1, as16[a], as16[a + 1u], ad[(ar * pc.k + e0) / ABLK]);
      }
    }
    barrier();  // the next group overwrites the copy
  }
  for (uint r = 0u; r < 8u; ++r) {  // a constant bound: acc stays in registers
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
