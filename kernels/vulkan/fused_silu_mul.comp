#version 450
// SiLU(gate) * up, one element per invocation: exp (3 + 2|g| ULP), 1 + e, the division
// (2.5 ULP), * up. Below g = -87 the divisor 1 + exp(-g) exceeds 2^126, where OpFDiv has
// no declared precision: the kernel returns the signed zero (|y| < 2^-120 |up| there, the
// oracle's bound).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer G { float gate[]; };
layout(std430, binding = 1) readonly buffer U { float up[]; };
layout(std430, binding = 2) buffer O { float o[]; };
layout(push_constant) uniform P { uint n; uint off; } pc;
#include "fused_common.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
  if (i >= pc.n) return;
  float g = gate[i], u = up[i];
  precise float y;
  if (g < -87.0) {
    y = (u < 0.0) ? 0.0 : -0.0;  // sign of g * u with g < 0
  } else {
    precise float e = exp(-g);
    precise float den = 1.0 + e;
    precise float s = g / den;
    y = s * u;
  }
  o[pc.off + i] = y;
}
