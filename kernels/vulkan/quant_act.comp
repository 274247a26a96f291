#version 450
// Activation quantization on the device, one workgroup per activation block, exactly as
// the oracle declares it (oracles/ops/precision.hpp):
//   ACT_Q8_1 (32):  d = f32(amax / 127), q = roundf(f32(x / d)) (half away from zero),
//                   stored scale f16(d)
//   ACT_Q8_K (256): max = the first element of largest |x|, iscale = f32(-127 / max),
//                   q = min(127, nearest-even(f32(iscale * x))), d = f32(1 / iscale)
// Every division is done in f64 and rounded once to f32 in integer arithmetic: f32
// division is not correctly rounded in Vulkan (2.5 ulp), and a device that flushes f32
// denormals would lose a denormal x or d; the f64 quotient of two f32 values is never
// within its own error of an f32 rounding boundary, so its rounding is the correct one.
// Outputs: codes (four per word, little-endian), the scale's f32 bits per block, and
// the sum of the codes per 16 (kernels subtract code offsets and minimums with them).
#extension GL_ARB_gpu_shader_fp64 : require
#if defined(ACT_Q8_K)
#define ABLK 256u
#else
#define ABLK 32u
#endif
layout(local_size_x = ABLK) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };  // the activations' f32 bits
layout(std430, binding = 1) writeonly buffer A { uint aq[]; };
layout(std430, binding = 2) writeonly buffer AD { uint ad[]; };
layout(std430, binding = 3) writeonly buffer AS { int as16[]; };
layout(push_constant) uniform P { uint blocks; } pc;

#include "common.glsl"

// The exact value of an f32 (denormals included) as a double, in integer arithmetic.
double f64_of(uint bits) {
  uint m;
  int e = f32_parts(bits, m);
  double v = ldexp(double(m), e);
  return (bits >> 31u) != 0u ? -v : v;
}

// A finite double rounded once to f32 (nearest even; denormals and overflow to Inf
// included): the top 31 significand bits with the rest folded into a sticky bit.
uint f32_bits_of(double v) {
  uvec2 u = unpackDouble2x32(v);
  bool neg = (u.y >> 31u) != 0u;
  uint ex = (u.y >> 20u) & 0x7FFu;
  if (ex == 0u) return neg ? 0x80000000u : 0u;  // zero or an f64 denormal: far below f32's range
  uint m31 = (((u.y & 0xFFFFFu) | 0x100000u) << 10u) | (u.x >> 22u);
  if ((u.x & 0x3FFFFFu) != 0u) m31 |= 1u;
  return round_float_bits(neg, m31, int(ex) - 1053, false);
}

shared uint s_red[ABLK];
shared int s_q[ABLK];

void main() {
  uint blk = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (blk >= pc.blocks) return;  // uniform across the workgroup
  uint t = gl_LocalInvocationID.x;
  uint xb = w[blk * ABLK + t];
  uint ab = xb & 0x7FFFFFFFu;  // |x|: its bits order as its value
  s_red[t] = ab;
  barrier();
  for (uint s = ABLK / 2u; s > 0u; s >>= 1u) {
    if (t < s) s_red[t] = max(s_red[t], s_red[t + s]);
    barrier();
  }
  uint amax = s_red[0];
  int q = 0;
  uint dbits = 0u;
#if defined(ACT_Q8_K)
  barrier();
  s_red[t] = ab == amax ? t : 0xFFFFu;  // the first element of largest magnitude
  barrier();
  for (uint s = ABLK / 2u; s > 0u; s >>= 1u) {
    if (t < s) s_red[t] = min(s_red[t], s_red[t + s]);
    barrier();
  }
  if (amax != 0u) {
    double mx = f64_of(w[blk * ABLK + s_red[0]]);
    uint is_bits = f32_bits_of(-127.0LF / mx);
    double iscale = f64_of(is_bits);
    dbits = f32_bits_of(1.0LF / iscale);
    double tq = f64_of(f32_bits_of(iscale * f64_of(xb)));  // the f32 product, rounded once
    q = min(int(roundEven(tq)), 127);
  }
#else
  dbits = f32_bits_of(f64_of(amax) / 127.0LF);
  if (dbits != 0u) {
    double tq = f64_of(f32_bits_of(f64_of(xb) / f64_of(dbits)));
    double ti = trunc(tq);
    q = int(ti) + (abs(tq - ti) >= 0.5LF ? (tq < 0.0LF ? -1 : 1) : 0);  // roundf
  }
  // The block stores f16(d); kernels use it as f32 (exact: an f16 is a normal f32).
  dbits = floatBitsToUint(unpackHalf2x16(f32_to_f16_rne(uintBitsToFloat(dbits))).x);
#endif
  s_q[t] = q;
  barrier();
  if ((t & 3u) == 0u)
    aq[blk * (ABLK / 4u) + t / 4u] = (uint(s_q[t]) & 255u) | ((uint(s_q[t + 1u]) & 255u) << 8u) |
                                     ((uint(s_q[t + 2u]) & 255u) << 16u) | (uint(s_q[t + 3u]) << 24u);
  if ((t & 15u) == 0u) {
    int sum = 0;
    for (uint i = 0u; i < 16u; ++i) sum += s_q[t + i];
    as16[blk * (ABLK / 16u) + t / 16u] = sum;
  }
  if (t == 0u) ad[blk] = dbits;
}
