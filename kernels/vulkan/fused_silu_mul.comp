#version 450
// SiLU(gate) * up, one element per invocation: exp (3 + 2|g| ULP), 1 + e, the division
// (2.5 ULP), * up. Below g = -87 the divisor 1 + exp(-g) exceeds 2^126, where OpFDiv has
// no declared precision: the kernel returns the signed zero (|y| < 2^-120 |up| there, the
// oracle's bound).
// Element i is column i % cols of row i / cols: gate at row * stride + column, up at
// row * stride + u_off + column. silu_mul passes cols = n (one row, gate and up apart);
// the gate+up pair (gate_up_launch.cpp) binds its mat-vec output [g | u] (stride 2 cols)
// as both buffers, u_off = cols.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer G { float gate[]; };
layout(std430, binding = 1) readonly buffer U { float up[]; };
layout(std430, binding = 2) buffer O { float o[]; };
layout(push_constant) uniform P { uint n; uint off; uint cols; uint stride; uint u_off; } pc;
#include "fused_common.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;
  if (i >= pc.n) return;
  uint row = i / pc.cols, col = i - row * pc.cols, at = row * pc.stride + col;
  float g = gate[at], u = up[at + pc.u_off];
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
