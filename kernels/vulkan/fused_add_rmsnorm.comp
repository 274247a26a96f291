#version 450
// Residual add + RMSNorm, one workgroup of 64 per row: h = x + res (one f32 addition,
// written out exactly), the sum of h^2 along each invocation's stride (ceil(n/64) terms)
// and a 6-level tree in shared memory (declared depth ceil(n/64) + 6), mean = s * (1/n)
// (1/n rounded on the host), inversesqrt(mean + eps) (2 ULP), y = h * r * w.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer R { float res[]; };
layout(std430, binding = 2) readonly buffer Wt { float wt[]; };
layout(std430, binding = 3) buffer Y { float y[]; };
layout(std430, binding = 4) buffer H { float hout[]; };
layout(push_constant) uniform P { uint n; uint rows; uint off_y; uint off_h; float eps; float inv_n; } pc;
#include "fused_common.glsl"

shared float part[64];

void main() {
  uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (row >= pc.rows) return;  // uniform across the workgroup
  uint lid = gl_LocalInvocationID.x, base = row * pc.n;
  precise float acc = 0.0;
  for (uint i = lid; i < pc.n; i += 64u) {
    precise float h = x[base + i] + res[base + i];
    hout[pc.off_h + base + i] = h;
    precise float sq = h * h;
    acc = acc + sq;
  }
  part[lid] = acc;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (lid < s) {
      precise float t = part[lid] + part[lid + s];
      part[lid] = t;
    }
    barrier();
  }
  precise float mean = part[0] * pc.inv_n;
  precise float v = mean + pc.eps;
  precise float r = inversesqrt(v);
  for (uint i = lid; i < pc.n; i += 64u) {
    precise float h = x[base + i] + res[base + i];
    precise float t = h * r;
    y[pc.off_y + base + i] = t * wt[i];
  }
}
