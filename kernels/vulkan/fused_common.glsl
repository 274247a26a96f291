// Shared by the fusion and attention shaders (kernels/vulkan/fused_*.comp). Their declared
// precision is the Vulkan specification's (Appendix A, "Precision and Operation of SPIR-V
// Instructions"; oracles/ops/fused_math.hpp vulkan_math): add, sub, mul correctly rounded;
// division 2.5 ULP; exp (3 + 2|x|) ULP; inversesqrt 2 ULP; no fused multiply-add promised
// ("inherited from OpFMul followed by OpFAdd"). Every arithmetic result is `precise` so the
// compiler neither reorders nor contracts what the bound counts. sin and cos, whose
// precision Vulkan leaves undefined, are computed here (rope_sincos).

#ifdef QGATE_DENORM_PRESERVE
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);  // DenormPreserve 32
#endif

// f32 -> f16 -> f32, round to nearest even in integer arithmetic (packHalf2x16's rounding
// is not pinned by the spec); Inf beyond 65520, f16 subnormals kept (quantum 2^-24).
float round_to_f16(float f) {
  uint x = floatBitsToUint(f);
  uint sign = x & 0x80000000u;
  uint a = x & 0x7FFFFFFFu;
  if (a >= 0x477FF000u) return uintBitsToFloat(sign | 0x7F800000u);
  if (a < 0x38800000u) {  // below 2^-14: a multiple of 2^-24, round(|f| * 2^24) exactly
    precise float q = roundEven(abs(f) * 16777216.0);
    return uintBitsToFloat(sign | floatBitsToUint(q * (1.0 / 16777216.0)));
  }
  a += 0x00000FFFu + ((a >> 13u) & 1u);
  return uintBitsToFloat(sign | (a & 0xFFFFE000u));
}

// f32 -> bf16 -> f32, round to nearest even (the top 16 bits of the f32).
float round_to_bf16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return f;
  x += 0x7FFFu + ((x >> 16u) & 1u);
  return uintBitsToFloat(x & 0xFFFF0000u);
}

// sin and cos of an f32 theta in [0, 4096) in f32 arithmetic only (each step correctly
// rounded, no fma): k = nearest quadrant, r = theta - k pi/2 by Cody-Waite with pi/2 split
// in P1 + P2 (8 and 12 significant bits, so k P1 and k P2 are exact for k < 2^12, and
// theta - k P1 is exact by Sterbenz) + P3; |r^ - r| <= 2u |r| + u |k P3| + k 2^-48.
// Taylor polynomials on |r| <= pi/4 (+ 2^-20): sin to r^11 (truncation < 2^-36), cos to
// r^12 (< 2^-38), Horner in f32: |sin^ - sin r| <= 3.2u, |cos^ - cos r| <= 5.5u absolute,
// with the reduction error (its derivative is at most 1). Declared: 8u each
// (FusedMath::trig_u for Vulkan), a quarter more than the sum.
void rope_sincos(float theta, out float s, out float c) {
  const float P1 = 1.5703125;               // 201/128
  const float P2 = 4.838705062866211e-4;    // 0x1.fb6p-12 (12 significant bits)
  const float P3 = -4.371138828673793e-8;   // pi/2 - P1 - P2, rounded to f32
  precise float kf = roundEven(theta * 0.636619772367581343);
  int k = int(kf);
  precise float r = ((theta - kf * P1) - kf * P2) - kf * P3;
  precise float r2 = r * r;
  precise float sp = r + r * r2 * (-1.66666666666666667e-1 + r2 * (8.33333333333333333e-3 + r2 * (-1.98412698412698413e-4 +
                     r2 * (2.75573192239858907e-6 + r2 * -2.50521083854417188e-8))));
  precise float cp = 1.0 + r2 * (-0.5 + r2 * (4.16666666666666667e-2 + r2 * (-1.38888888888888889e-3 +
                     r2 * (2.48015873015873016e-5 + r2 * (-2.75573192239858907e-7 + r2 * 2.08767569878680990e-9)))));
  int quad = k & 3;
  s = quad == 0 ? sp : quad == 1 ? cp : quad == 2 ? -sp : -cp;
  c = quad == 0 ? cp : quad == 1 ? -sp : quad == 2 ? -cp : sp;
}
