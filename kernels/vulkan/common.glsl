// Shared by every qgate compute shader: f32 denormals preserved where the device can be
// asked to (QGATE_DENORM_PRESERVE: SPV_KHR_float_controls DenormPreserve 32; a block scale
// like mxfp4's 2^-128 is a denormal, and a driver that flushes it computes zeros, as the
// H200's does unless asked; each shader is built both ways and the runtime picks by
// shaderDenormPreserveFloat32), byte access into uint-packed storage, fp16 decode,
// and the exact output conversions (round-to-odd subtraction, f32 -> f16 round to nearest
// even in integer arithmetic: packHalf2x16's rounding is not pinned by the spec).

#if defined(QGATE_DENORM_PRESERVE) || defined(QGATE_INT_DOT)
#extension GL_EXT_spirv_intrinsics : require
#endif
#ifdef QGATE_DENORM_PRESERVE
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32);  // DenormPreserve 32
#endif

uint rb(uint off) { return (w[off >> 2] >> ((off & 3u) * 8u)) & 0xFFu; }
uint ru16(uint off) { return rb(off) | (rb(off + 1u) << 8u); }
uint ru32(uint off) { return ru16(off) | (ru16(off + 2u) << 16u); }
int rs8(uint off) { return int(rb(off) << 24u) >> 24; }
// An fp16 field: every ggml block has an even size and keeps its fp16 fields at even
// offsets, so the half is in one word (one load, not two byte reads).
float rf16(uint off) { return unpackHalf2x16(w[off >> 2] >> ((off & 2u) * 8u)).x; }

// a - b rounded to odd in f32 (both exact f32 values): a later rounding to a type with at
// most 22 fraction bits is then the correctly rounded result of the exact difference.
float sub_round_odd(float a, float b) {
  precise float s = a - b;
  if (isinf(s)) return s;  // overflow: TwoSum would turn it into NaN
  precise float bb = s - a;
  precise float e = (a - (s - bb)) + (-b - bb);  // TwoSum: s + e == a - b exactly
  uint bits = floatBitsToUint(s);
  if (e != 0.0 && (bits & 1u) == 0u) bits = ((e > 0.0) == (s > 0.0)) ? bits + 1u : bits - 1u;
  return uintBitsToFloat(bits);
}

uint f32_to_f16_rne(float f) {
  uint x = floatBitsToUint(f);
  uint sign = (x >> 16u) & 0x8000u;
  uint a = x & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return sign | (a > 0x7F800000u ? 0x7E00u : 0x7C00u);
  if (a >= 0x477FF000u) return sign | 0x7C00u;               // >= 65520 rounds to Inf
  if (a < 0x38800000u) return sign | uint(roundEven(abs(f) * 16777216.0));  // f16 subnormal: quantum 2^-24
  a += 0x00000FFFu + ((a >> 13u) & 1u);
  return sign | ((a - 0x38000000u) >> 13u);
}

// An f32 from its bits as |x| = m * 2^e with m an integer (the significand with its hidden
// bit, < 2^24); the sign is bit 31. Integer arithmetic: a denormal stays what it is.
int f32_parts(uint bits, out uint m) {
  uint ex = (bits >> 23u) & 255u;
  m = (bits & 0x7FFFFFu) | (ex != 0u ? 0x800000u : 0u);
  return int(max(ex, 1u)) - 150;
}

// The bits of (-1)^neg * m * 2^e (m < 2^31) rounded once, to nearest even, to f32 or f16,
// subnormals and overflow to Inf included, in integer arithmetic: for values whose exact
// product is wider than f32, or that may be f32 denormals a flushing device would lose.
uint round_float_bits(bool neg, uint m, int e, bool to_f16) {
  int frac = to_f16 ? 10 : 23, bias = to_f16 ? 15 : 127;
  uint sign = neg ? (to_f16 ? 0x8000u : 0x80000000u) : 0u;
  if (m == 0u) return sign;
  int q = max(e + findMSB(m), 1 - bias) - frac;  // exponent of the result's last place
  int sh = q - e;                                 // m's bits below that place
  uint r;
  if (sh <= 0) {
    r = m << uint(-sh);  // exact: fits in frac + 1 bits
  } else if (sh >= 32) {
    r = 0u;  // m < 2^31 <= half a place
  } else {
    uint kept = m >> uint(sh), rest = m & ((1u << uint(sh)) - 1u), halfway = 1u << uint(sh - 1);
    r = kept + ((rest > halfway || (rest == halfway && (kept & 1u) != 0u)) ? 1u : 0u);
  }
  // r = significand in units of 2^q (hidden bit included; a carry to 2^(frac+1) moves into
  // the exponent field by itself; below the normal range the field is 0 and r the fraction).
  uint bits = (uint(q + frac + bias - 1) << uint(frac)) + r;
  return sign | min(bits, to_f16 ? 0x7C00u : 0x7F800000u);
}

// The little-endian word at any byte offset (blocks of 18, 34, 210 bytes leave their
// fields unaligned): two aligned loads and a funnel shift.
// Branch-free, so both loads issue at once; it reads the word after `off`'s, which
// every buffer it reads has (launches pad weight buffers by 16 bytes).
uint ru32u(uint off) {
  uint sh = (off & 3u) * 8u;
  return (w[off >> 2] >> sh) | ((w[(off >> 2) + 1u] << 1u) << (31u - sh));
}

// Eight consecutive little-endian words from any byte offset: nine aligned loads, each
// pair funnel-shifted (ru32u eight times would load sixteen).
void ru32u_run8(uint off, out uint v[8]) {
  uint sh = (off & 3u) * 8u, a = off >> 2, lo = w[a];
  for (uint j = 0u; j < 8u; ++j) {
    uint hi = w[a + j + 1u];
    v[j] = (lo >> sh) | ((hi << 1u) << (31u - sh));
    lo = hi;
  }
}
// The same from a 16-byte-aligned offset. A shader that also binds its weights as 16-byte
// quads (QGATE_W4: `w4`, the same buffer) reads two quads: word loads, each invocation at
// its own block, fetch the same 32-byte sector once per word, and on the H200 the int8
// mat-vec was bound by those repeated fetches (q4_K 33% -> 42% of the stream). For
// unaligned runs, picking the words out of three quads cost more than it saved (q6_K,
// q8_0, q4_0 measured slower), so those keep ru32u_run8.
void ru32a_run8(uint off, out uint v[8]) {
#ifdef QGATE_W4
  uvec4 a = w4[off >> 4], b = w4[(off >> 4) + 1u];
  v = uint[8](a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w);
#else
  for (uint j = 0u; j < 8u; ++j) v[j] = w[(off >> 2) + j];
#endif
}

// x * 2^e in two steps whose factors are normal f32 (|e| <= 254): exact where the result
// is representable, one rounding (or a flush, on a flushing device) where it is not.
// ldexp alone may multiply by 2^e, itself a denormal for e < -126.
float ldexp2(float x, int e) {
  int h = e / 2;
  return ldexp(ldexp(x, h), e - h);
}

// The dot product of four signed bytes packed in a and b, exact in int32.
// QGATE_INT_DOT: SPV_KHR_integer_dot_product's OpSDot (the device's packed int8 dot
// product, feature shaderIntegerDotProduct); otherwise four integer multiply-adds.
#ifdef QGATE_INT_DOT
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_packed(int a, int b, spirv_literal int packed_format);  // OpSDot, PackedVectorFormat4x8Bit (0)
int dot4(uint a, uint b) { return sdot_packed(int(a), int(b), 0); }
#else
int dot4(uint a, uint b) {
  ivec4 x = ivec4(int(a << 24u), int(a << 16u), int(a << 8u), int(a)) >> 24;
  ivec4 y = ivec4(int(b << 24u), int(b << 16u), int(b << 8u), int(b)) >> 24;
  return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}
#endif
