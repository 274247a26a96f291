// One 32-element chunk of a weight row against the matching chunk of a quantized
// activation row, for matvec_q8.comp and gemm_q8.comp: the chunk's weight scales
// (w_scales, read once per chunk) and its f32 contribution (q8_term) from the two exact
// integer half-dots s0, s1 and the activation code sums q0, q1 of the halves.
#if defined(ACT_Q8_K)
#define ABLK 256u
#else
#define ABLK 32u
#endif

struct WScales {
  float d0, d1, m0, m1;
  int e;  // DSUB_EXP formats: the scale's exponent
};

#ifndef QGATE_OWN_WSCALES  // a shader that forms the scales itself (gptq.comp)
WScales w_scales(uint b, uint i0) {
  WScales s;
  s.e = 0;
  s.m0 = 0.0;
  s.m1 = 0.0;
#ifdef DSUB_EXP
  s.d0 = 1.0;
  s.d1 = 1.0;
  s.e = dsub_exp(b, i0 / SUB);
#elif defined(WSCALES_FAST)  // SUB >= 32 and a min
  dmsub_fast(b, i0 / SUB, s.d0, s.m0);
  s.d1 = s.d0;
  s.m1 = s.m0;
#else
  s.d0 = dsub(b, i0 / SUB);
  s.d1 = SUB >= 32u ? s.d0 : dsub(b, (i0 + 16u) / SUB);
#ifdef HAS_MIN
  s.m0 = msub(b, i0 / SUB);
  s.m1 = SUB >= 32u ? s.m0 : msub(b, (i0 + 16u) / SUB);
#endif
#endif
  return s;
}
#endif

// x * 2^e for any |e| (steps of at most 2^+-120, each factor a normal f32): exact where
// the result is representable; below the normal range it rounds (or flushes) once or twice.
float ldexp_wide(float x, int e) {
  e = clamp(e, -400, 400);
  while (e < -120) { x = ldexp(x, -120); e += 120; }
  while (e > 120) { x = ldexp(x, 120); e -= 120; }
  return ldexp(x, e);
}

float q8_term(WScales ws, int s0, int s1, int q0, int q1, uint dbits) {
#if CODE_BIAS != 0
  s0 -= CODE_BIAS * q0;  // exact: the codes were packed with the bias added
  s1 -= CODE_BIAS * q1;
#endif
  float v;
  if (SUB >= 32u) {
    v = ws.d0 * float(s0 + s1);
#ifdef HAS_MIN
    v -= ws.m0 * float(q0 + q1);
#endif
  } else {
    v = ws.d0 * float(s0) + ws.d1 * float(s1);
#ifdef HAS_MIN
    v -= ws.m0 * float(q0) + ws.m1 * float(q1);
#endif
  }
#ifndef DSUB_EXP
  // Fast path, bit for bit the slow one: a nonzero v is at least 2^-27 in magnitude (every
  // weight scale is a multiple of 2^-27: fp16 times small integers and eighths), so with
  // |d_x| >= 2^-96 the product is a normal f32 and both paths round the same exact value
  // once (rounding commutes with the power of two the slow path applies afterwards).
  if (((dbits >> 23u) & 255u) >= 31u) return uintBitsToFloat(dbits) * v;
#endif
  // The activation scale as significand * 2^exponent: never a denormal operand.
  uint dm;
  int de = f32_parts(dbits, dm);
  float r = ldexp_wide(float(dm) * v, de + ws.e);
  return (dbits >> 31u) != 0u ? -r : r;
}
