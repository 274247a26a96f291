#version 450
// MoE routing, one invocation per row (up to 256 experts): m = max logit, e_j = exp(l_j - m)
// ((3 + 2|z|) ULP), their sum in order (depth E - 1), p_j = e_j / sum (2.5 ULP), top-k by p
// scanning experts upward with a strict > (equal probabilities: the lower index first),
// the chosen p summed in slot order (depth k - 1), weights p / that sum (2.5 ULP).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer L { float logit[]; };
layout(std430, binding = 1) buffer W { float wout[]; };
layout(std430, binding = 2) buffer IDS { int ids[]; };
layout(push_constant) uniform P { uint rows; uint experts; uint top_k; uint off_w; uint off_ids; } pc;
#include "fused_common.glsl"

void main() {
  uint row = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
  if (row >= pc.rows) return;
  uint E = pc.experts, base = row * E;
  float p[256];
  uint used[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  float m = logit[base];
  for (uint j = 1u; j < E; ++j) m = max(m, logit[base + j]);
  precise float sum = 0.0;
  for (uint j = 0u; j < E; ++j) {
    precise float z = logit[base + j] - m;
    precise float e = exp(z);
    p[j] = e;
    sum = sum + e;
  }
  for (uint j = 0u; j < E; ++j) {
    precise float pj = p[j] / sum;
    p[j] = pj;
  }
  precise float chosen = 0.0;
  uint pick[8];
  for (uint s = 0u; s < pc.top_k; ++s) {
    int best = -1;
    float bp = 0.0;
    for (uint j = 0u; j < E; ++j) {
      if ((used[j >> 5u] & (1u << (j & 31u))) != 0u) continue;
      if (best < 0 || p[j] > bp) { best = int(j); bp = p[j]; }
    }
    used[uint(best) >> 5u] |= 1u << (uint(best) & 31u);
    pick[s] = uint(best);
    ids[pc.off_ids + row * pc.top_k + s] = best;
    chosen = chosen + bp;
  }
  for (uint s = 0u; s < pc.top_k; ++s) {
    precise float w = p[pick[s]] / chosen;
    wout[pc.off_w + row * pc.top_k + s] = w;
  }
}
