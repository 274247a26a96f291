// Per-format block access, one branch per FMT_<name> define (the format axis of the
// Vulkan kernels). Each defines QK (elements per block), BLOCK_BYTES, SUB (elements per
// sub-block) and, for block byte offset b and element i:
//   int   qcode(b, i)    the integer code after the format's offset
//   float dsub(b, j)     the sub-block scale  (x = dsub * q - msub, exact in f32 products)
//   float msub(b, j)     the sub-block offset (0 where the format has none)
// Layouts: ggml src/ggml-common.h; written from the block layouts, not from other code.

#if defined(FMT_q4_0) || defined(FMT_q4_1) || defined(FMT_q5_0) || defined(FMT_q5_1)
#define QK 32u
#define SUB 32u
#if defined(FMT_q4_0)
#define BLOCK_BYTES 18u
#define QS 2u
#elif defined(FMT_q4_1)
#define BLOCK_BYTES 20u
#define QS 4u
#elif defined(FMT_q5_0)
#define BLOCK_BYTES 22u
#define QH 2u
#define QS 6u
#else
#define BLOCK_BYTES 24u
#define QH 4u
#define QS 8u
#endif
int qcode(uint b, uint i) {
#ifdef MUTANT_crossed_lanes
  uint nib = i < 16u ? (rb(b + QS + i) >> 4u) : (rb(b + QS + i - 16u) & 15u);
#else
  uint nib = i < 16u ? (rb(b + QS + i) & 15u) : (rb(b + QS + i - 16u) >> 4u);
#endif
#ifdef QH
  nib |= ((ru32(b + QH) >> i) & 1u) << 4u;
#endif
#if defined(FMT_q4_0)
  return int(nib) - 8;
#elif defined(FMT_q5_0)
  return int(nib) - 16;
#else
  return int(nib);
#endif
}
float dsub(uint b, uint j) { return rf16(b); }
#if defined(FMT_q4_1) || defined(FMT_q5_1)
float msub(uint b, uint j) { return -rf16(b + 2u); }
#else
float msub(uint b, uint j) { return 0.0; }
#endif

#elif defined(FMT_q8_0)
#define QK 32u
#define SUB 32u
#define BLOCK_BYTES 34u
int qcode(uint b, uint i) { return rs8(b + 2u + i); }
float dsub(uint b, uint j) { return rf16(b); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_mxfp4)
#define QK 32u
#define SUB 32u
#define BLOCK_BYTES 17u
int qcode(uint b, uint i) {
  uint nib = i < 16u ? (rb(b + 1u + i) & 15u) : (rb(b + 1u + i - 16u) >> 4u);
  // twice the E2M1 value: magnitudes 0 1 2 3 4 6 8 12, bit 3 the sign
  const int mag[8] = int[8](0, 1, 2, 3, 4, 6, 8, 12);
  int v = mag[nib & 7u];
  return (nib & 8u) != 0u ? -v : v;
}
float dsub(uint b, uint j) { return ldexp(1.0, int(rb(b)) - 128); }
float msub(uint b, uint j) { return 0.0; }
// The exact f32 bits of element i, in integer arithmetic: q * 2^(e-128) is a denormal for
// small e, which a flush-to-zero device would lose in any float operation.
#define VALUE_BITS_EXACT
uint value_bits(uint b, uint i) {
  int q = qcode(b, i);
  uint sign = q < 0 ? 0x80000000u : 0u;
  uint a = uint(abs(q));              // 0..12: at most 4 significant bits
  if (a == 0u) return sign;
  int top = findMSB(a);               // a = 1.f * 2^top
  int e = int(rb(b)) - 128 + top;     // unbiased exponent of the value
  if (e > 127) return sign | 0x7F800000u;  // 6 * 2^127 and up: Inf, as correct rounding says
  if (e >= -126) {                    // normal
    return sign | (uint(e + 127) << 23u) | ((a << (23 - top)) & 0x7FFFFFu);
  }
  int shift = int(rb(b)) - 128 + 149;  // denormal: bits = a * 2^(exponent + 149), exact (>= 0 here)
  return sign | (shift >= 0 ? (a << uint(shift)) : 0u);
}

#elif defined(FMT_q2_K)
#define QK 256u
#define SUB 16u
#define BLOCK_BYTES 84u
int qcode(uint b, uint i) {  // i = 128h + 32g + l: bits 2g of qs[32h + l]
  uint h = i >> 7u, g = (i >> 5u) & 3u, l = i & 31u;
  return int((rb(b + 16u + 32u * h + l) >> (2u * g)) & 3u);
}
float dsub(uint b, uint j) { return rf16(b + 80u) * float(rb(b + j) & 15u); }
float msub(uint b, uint j) { return rf16(b + 82u) * float(rb(b + j) >> 4u); }

#elif defined(FMT_q3_K)
#define QK 256u
#define SUB 16u
#define BLOCK_BYTES 110u
int qcode(uint b, uint i) {
  uint h = i >> 7u, g = (i >> 5u) & 3u, l = i & 31u;
  int lo = int((rb(b + 32u + 32u * h + l) >> (2u * g)) & 3u);
  bool hi = ((rb(b + l) >> (4u * h + g)) & 1u) != 0u;
  return hi ? lo : lo - 4;
}
float dsub(uint b, uint j) {
  uint lo = j < 8u ? (rb(b + 96u + j) & 15u) : (rb(b + 96u + j - 8u) >> 4u);
  uint hi = (rb(b + 104u + (j & 3u)) >> (2u * (j >> 2u))) & 3u;
  return rf16(b + 108u) * float(int(lo | (hi << 4u)) - 32);
}
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_q4_K) || defined(FMT_q5_K)
#define QK 256u
#define SUB 32u
#if defined(FMT_q4_K)
#define BLOCK_BYTES 144u
#define QS 16u
#else
#define BLOCK_BYTES 176u
#define QS 48u
#endif
// 6-bit scale (which = 0) or min (which = 1) of sub-block j from the 12 packed bytes.
uint k4_scale(uint b, uint j, uint which) {
  uint s = b + 4u;
  if (j < 4u) return rb(s + j + 4u * which) & 63u;
  uint low = which == 0u ? (rb(s + j + 4u) & 15u) : (rb(s + j + 4u) >> 4u);
  uint high = rb(s + j - 4u + 4u * which) >> 6u;
  return low | (high << 4u);
}
int qcode(uint b, uint i) {  // chunk c of 64: low nibbles of qs[32c..] then high nibbles
  uint c = i >> 6u, l = i & 31u;
  uint byte = rb(b + QS + 32u * c + l);
  uint q = (i & 32u) != 0u ? (byte >> 4u) : (byte & 15u);
#if defined(FMT_q5_K)
  q |= ((rb(b + 16u + l) >> (i >> 5u)) & 1u) << 4u;
#endif
  return int(q);
}
float dsub(uint b, uint j) { return rf16(b) * float(k4_scale(b, j, 0u)); }
float msub(uint b, uint j) { return rf16(b + 2u) * float(k4_scale(b, j, 1u)); }

#elif defined(FMT_q6_K)
#define QK 256u
#define SUB 16u
#define BLOCK_BYTES 210u
int qcode(uint b, uint i) {  // i = 128h + 32r + l
  uint h = i >> 7u, r = (i >> 5u) & 3u, l = i & 31u;
  uint low = rb(b + 64u * h + 32u * (r & 1u) + l);
  low = r >= 2u ? (low >> 4u) : (low & 15u);
  uint high = (rb(b + 128u + 32u * h + l) >> (2u * r)) & 3u;
  return int(low | (high << 4u)) - 32;
}
float dsub(uint b, uint j) { return rf16(b + 208u) * float(rs8(b + 192u + j)); }
float msub(uint b, uint j) { return 0.0; }

#else
#error "no FMT_<format> defined"
#endif
