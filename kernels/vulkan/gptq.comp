#version 450
// GPTQ / AutoRound int4 (auto_gptq v1 packing in qgate's container, oracles/formats/gptq.hpp)
// on Vulkan. The container is bound as it is (binding 0); the launch validates its header
// and g_idx and passes each array's word offset. Element (col, kk) of the [n][k] tensor:
//   q = nibble kk%8 of qweight[kk/8][col], g = g_idx[kk] or kk/group,
//   z = nibble col%8 of qzeros[g][col/8] + 1, w = f16 scale[g][col] * (q - z)
// w is exact in f32 (an 11-bit significand times an integer of |.| <= 16, never an f32
// denormal), so dequant to f32 is exact and to f16 one correct rounding (integer RNE).
//   DEQUANT (OUT_F16): one output element per invocation (two, one word, for f16).
//   default: mat-vec with f32 activations, M <= 8 (MAXM): a workgroup of 64 columns x 4
//     K-slices; slice s multiplies-adds the packed words s, s+4, ... of its column (8
//     elements each, in order) into one accumulator per activation row, then the four
//     slices are added (s0+s2)+(s1+s3). Declared depth: 16 * ceil(K/32) (every fma may
//     be two roundings) + 2.
//   Q8: W4A8 mat-vec on activations quantized to q8_1 on the device (quant_act.comp),
//     contiguous groups that are a multiple of 32 (the launch refuses others): 64 columns x
//     4 K-slices; slice s takes the 32-element chunks s, s+4, ... of its column: the codes
//     of a chunk are its four packed words spread to bytes, exact integer dots per half
//     (dot4: packed int8 dot with QGATE_INT_DOT), then q8_term.glsl with the group's scale
//     d and min d*z (exact: fp16 times an integer <= 16):
//       v = d * (s0 + s1) - (d*z) * (q0 + q1);  acc += d_x * v
//     Declared depth: ceil(K/128) (a slice's chunks in order) + 3 (v) + 2 (scaling) + 2.
#ifdef DEQUANT
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
#elif defined(Q8)
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64, local_size_y = 4) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer A { uint aq[]; };
layout(std430, binding = 2) readonly buffer AD { uint ad[]; };
layout(std430, binding = 3) readonly buffer AS { int as16[]; };
layout(std430, binding = 4) buffer O { uint o[]; };
#else
layout(local_size_x = 64, local_size_y = 4) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) buffer O { uint o[]; };
#endif
layout(push_constant) uniform P {
  uint n; uint k; uint group; uint has_g_idx;
  uint qweight; uint qzeros; uint scales; uint g_idx;  // word offsets into w
  uint m; uint out_word;
  uint row0;  // Q8: the first quantized activation row of this dispatch
} pc;

#include "common.glsl"

uint group_of(uint kk) { return pc.has_g_idx != 0u ? w[pc.g_idx + kk] : kk / pc.group; }
int zero_of(uint g, uint col) {
  uint stored = (w[pc.qzeros + g * (pc.n >> 3u) + (col >> 3u)] >> (4u * (col & 7u))) & 15u;
#ifdef MUTANT_stored_zero
  return int(stored);  // planted: the v1 convention's +1 left out
#else
  return int(stored) + 1;
#endif
}
float scale_of(uint g, uint col) {
  uint h = g * pc.n + col;  // fp16 index
  return unpackHalf2x16(w[pc.scales + (h >> 1u)] >> ((h & 1u) * 16u)).x;
}
int code_of(uint word, uint j) { return int((word >> (4u * j)) & 15u); }
float value(uint col, uint kk) {
  uint g = group_of(kk);
  return scale_of(g, col) * float(code_of(w[pc.qweight + (kk >> 3u) * pc.n + col], kk & 7u) - zero_of(g, col));
}

#ifdef DEQUANT
void main() {
  uint t = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#ifdef OUT_F16
  uint e = 2u * t;  // k is a multiple of 8: both halves of a word are in one column
  if (e >= pc.n * pc.k) return;
  uint col = e / pc.k, kk = e % pc.k;
  o[pc.out_word + t] = f32_to_f16_rne(value(col, kk)) | (f32_to_f16_rne(value(col, kk + 1u)) << 16u);
#else
  if (t >= pc.n * pc.k) return;
  o[pc.out_word + t] = floatBitsToUint(value(t / pc.k, t % pc.k));
#endif
}
#else
#ifndef MAXM
#define MAXM 8u
#endif
shared float red[4][MAXM][64];

// The four K-slices' partial sums added (s0 + s2) + (s1 + s3), written by slice 0.
void store(float acc[MAXM], uint lx, uint s, uint col) {
  for (uint r = 0u; r < MAXM; ++r) red[s][r][lx] = acc[r];
  barrier();
  if (s == 0u && col < pc.n)
    for (uint r = 0u; r < pc.m; ++r)
      o[pc.out_word + r * pc.n + col] = floatBitsToUint((red[0][r][lx] + red[2][r][lx]) + (red[1][r][lx] + red[3][r][lx]));
}

#ifdef Q8
#define SUB 32u
#define CODE_BIAS 0
#define HAS_MIN
#define QGATE_OWN_WSCALES  // the group's scale and min are formed here, not by formats.glsl
#include "q8_term.glsl"

// Four 4-bit codes (16 bits) spread to the four bytes of a word, in element order.
uint spread4(uint h) { return (h & 0xFu) | ((h << 4u) & 0xF00u) | ((h << 8u) & 0xF0000u) | ((h << 12u) & 0xF000000u); }

void main() {
  uint lx = gl_LocalInvocationID.x, s = gl_LocalInvocationID.y;
  uint col = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * 64u + lx;
  float acc[MAXM];
  [[unroll]] for (uint r = 0u; r < MAXM; ++r) acc[r] = 0.0;
  if (col < pc.n) {
    for (uint c = s; c < pc.k / 32u; c += 4u) {
      uint g = c * 32u / pc.group;
      WScales ws;
      ws.d0 = scale_of(g, col);
      ws.d1 = ws.d0;
      ws.m0 = ws.d0 * float(zero_of(g, col));  // exact
      ws.m1 = ws.m0;
      ws.e = 0;
      uint wq[8];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        uint word = w[pc.qweight + (4u * c + i) * pc.n + col];
        wq[2u * i] = spread4(word & 0xFFFFu);
        wq[2u * i + 1u] = spread4(word >> 16u);
      }
      [[unroll]] for (uint r = 0u; r < MAXM; ++r) {
        if (r >= pc.m) break;
        uint e = (pc.row0 + r) * pc.k + c * 32u, a = e / 4u;
        int s0 = dot4(wq[0], aq[a]) + dot4(wq[1], aq[a + 1u]) + dot4(wq[2], aq[a + 2u]) + dot4(wq[3], aq[a + 3u]);
        int s1 = dot4(wq[4], aq[a + 4u]) + dot4(wq[5], aq[a + 5u]) + dot4(wq[6], aq[a + 6u]) + dot4(wq[7], aq[a + 7u]);
        acc[r] += q8_term(ws, s0, s1, as16[e / 16u], as16[e / 16u + 1u], ad[e / 32u]);
      }
    }
  }
  store(acc, lx, s, col);
}
#else
void main() {
  uint lx = gl_LocalInvocationID.x, s = gl_LocalInvocationID.y;
  uint col = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * 64u + lx;
  float acc[MAXM];
  for (uint r = 0u; r < MAXM; ++r) acc[r] = 0.0;
  if (col < pc.n) {
    for (uint kw = s; kw < (pc.k >> 3u); kw += 4u) {
      uint word = w[pc.qweight + kw * pc.n + col];
      for (uint j = 0u; j < 8u; ++j) {
        uint kk = kw * 8u + j, g = group_of(kk);
        float wv = scale_of(g, col) * float(code_of(word, j) - zero_of(g, col));  // exact
        for (uint r = 0u; r < MAXM; ++r)
          if (r < pc.m) acc[r] = fma(wv, x[r * pc.k + kk], acc[r]);
      }
    }
  }
  store(acc, lx, s, col);
}
#endif  // Q8
#endif  // DEQUANT
