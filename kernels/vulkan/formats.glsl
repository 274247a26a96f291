// Per-format block access, one branch per FMT_<name> define (the format axis of the
// Vulkan kernels). QK (elements per block), BLOCK_BYTES and SUB (elements per sub-block)
// come from the format's formats.inc row, passed by the build (kernels/vulkan/shaders.cmake);
// each branch defines, for block byte offset b and element i:
//   int   qcode(b, i)    the integer code after the format's offset (integer formats)
//   float qvalue(b, i)   the element value before scaling: float(qcode) for integer formats
//                        (defined at the end), the element's own value for float formats
//                        (QVALUE_FLOAT: fp8)
//   float dsub(b, j)     the sub-block scale  (x = dsub * q - msub, exact in f32 products)
//   float msub(b, j)     the sub-block offset (0 where the format has none)
// Where dsub * q is not exact in f32 or can be an f32 denormal, the format also gives the
// correctly rounded bits in integer arithmetic, and the kernels use those:
//   VALUE_BITS_EXACT      uint value_bits(b, i)      f32 bits of x
//   VALUE_F16_BITS_EXACT  uint value_f16_bits(b, i)  f16 bits of x (one rounding of the exact x)
// Layouts: ggml src/ggml-common.h (fp8: qgate's, oracles/formats/fp8.cpp); written from the
// block layouts, not from other code.
// Codebook formats (IQ) read their table from one more storage buffer at TABLE_BINDING (set
// by the shader: the binding after its own): the bytes of the oracles' table in
// oracles/formats/iq_tables.hpp, bound as they are by the launch (kernels.inc names the
// table), never retyped here. uint64 grid entries are two words, low word first: byte j of
// entry e is byte j & 3 of word 2e + j / 4. Not a GLSL constant array: lavapipe copies a
// dynamically indexed constant array into per-invocation memory at each access, and its
// compile of such shaders ran past the 60 s dispatch watchdog (docs/VULKAN.md).

#if defined(FMT_q4_0) || defined(FMT_q4_1) || defined(FMT_q5_0) || defined(FMT_q5_1)
#if defined(FMT_q4_0)
#define QS 2u
#elif defined(FMT_q4_1)
#define QS 4u
#elif defined(FMT_q5_0)
#define QH 2u
#define QS 6u
#else
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
// int8 path: codes i..i+3 from one (unaligned) word of nibbles, the 5th bits spread to
// the byte lanes; q4_0 / q5_0 codes stay biased (nibble = code + 8 / + 16).
#define WPACK_FAST
#if defined(FMT_q4_0)
#define CODE_BIAS 8
#elif defined(FMT_q5_0)
#define CODE_BIAS 16
#else
#define CODE_BIAS 0
#define HAS_MIN
#endif
uint wpack4(uint b, uint i) {
  uint v = (ru32u(b + QS + (i & 15u)) >> (4u * (i >> 4u))) & 0x0F0F0F0Fu;
#ifdef QH
  uint h = (ru32u(b + QH) >> i) & 15u;
  v |= ((h & 1u) | ((h & 2u) << 7u) | ((h & 4u) << 14u) | ((h & 8u) << 21u)) << 4u;
#endif
  return v;
}

#elif defined(FMT_q8_0)
int qcode(uint b, uint i) { return rs8(b + 2u + i); }
float dsub(uint b, uint j) { return rf16(b); }
float msub(uint b, uint j) { return 0.0; }
#define WPACK_FAST
#define CODE_BIAS 0
uint wpack4(uint b, uint i) { return ru32u(b + 2u + i); }
#define WPACK8_FAST  // a chunk's 32 codes are 32 consecutive bytes
void wpack8(uint b, uint i0, out uint v[8]) { ru32u_run8(b + 2u + i0, v); }

#elif defined(FMT_mxfp4)
int qcode(uint b, uint i) {
  uint nib = i < 16u ? (rb(b + 1u + i) & 15u) : (rb(b + 1u + i - 16u) >> 4u);
  // twice the E2M1 value: magnitudes 0 1 2 3 4 6 8 12, bit 3 the sign
  const int mag[8] = int[8](0, 1, 2, 3, 4, 6, 8, 12);
  int v = mag[nib & 7u];
  return (nib & 8u) != 0u ? -v : v;
}
float dsub(uint b, uint j) { return ldexp(1.0, int(rb(b)) - 128); }
float msub(uint b, uint j) { return 0.0; }
// int8 path: the scale is a power of two, applied as an exponent (2^-128 is an f32 denormal).
#define DSUB_EXP
int dsub_exp(uint b, uint j) { return int(rb(b)) - 128; }
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
int qcode(uint b, uint i) {  // i = 128h + 32g + l: bits 2g of qs[32h + l]
  uint h = i >> 7u, g = (i >> 5u) & 3u, l = i & 31u;
  return int((rb(b + 16u + 32u * h + l) >> (2u * g)) & 3u);
}
float dsub(uint b, uint j) { return rf16(b + 80u) * float(rb(b + j) & 15u); }
float msub(uint b, uint j) { return rf16(b + 82u) * float(rb(b + j) >> 4u); }
#define WPACK_FAST
#define CODE_BIAS 0
#define HAS_MIN
uint wpack4(uint b, uint i) {
  uint h = i >> 7u, g = (i >> 5u) & 3u, l = i & 31u;
  return (w[(b + 16u + 32u * h + l) >> 2] >> (2u * g)) & 0x03030303u;  // 84-byte blocks: aligned
}

#elif defined(FMT_q3_K)
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
#define WPACK_FAST
#define CODE_BIAS 4  // packed: lo + 4 hi = code + 4
uint wpack4(uint b, uint i) {
  uint h = i >> 7u, g = (i >> 5u) & 3u, l = i & 31u;
  uint lo = (ru32u(b + 32u + 32u * h + l) >> (2u * g)) & 0x03030303u;
  uint hi = (ru32u(b + l) >> (4u * h + g)) & 0x01010101u;
  return lo | (hi << 2u);
}

#elif defined(FMT_q4_K) || defined(FMT_q5_K)
#if defined(FMT_q4_K)
#define QS 16u
#else
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
// int8 path: sub-block j's scale and min as dsub and msub give them, from four whole
// words (blocks of 144 / 176 bytes keep b a multiple of 16): d and dmin in the first, the
// twelve packed scale bytes in the next three.
#define WSCALES_FAST
void dmsub_fast(uint b, uint j, out float d, out float m) {
#ifdef QGATE_W4
  uvec4 h = w4[b >> 4];  // one 16-byte load
#else
  uvec4 h = uvec4(w[b >> 2], w[(b >> 2) + 1u], w[(b >> 2) + 2u], w[(b >> 2) + 3u]);
#endif
  uint sh = 8u * (j & 3u);
  uint b0 = (h.y >> sh) & 255u, b1 = (h.z >> sh) & 255u, b2 = (h.w >> sh) & 255u;
  uint sc = j < 4u ? (b0 & 63u) : ((b2 & 15u) | ((b0 >> 6u) << 4u));
  uint mn = j < 4u ? (b1 & 63u) : ((b2 >> 4u) | ((b1 >> 6u) << 4u));
  vec2 dm = unpackHalf2x16(h.x);
  d = dm.x * float(sc);
  m = dm.y * float(mn);
}
#define WPACK_FAST
#define CODE_BIAS 0
#define HAS_MIN
uint wpack4(uint b, uint i) {  // blocks of 144 / 176 bytes: words stay aligned
  uint c = i >> 6u, l = i & 31u;
  uint v = (w[(b + QS + 32u * c + l) >> 2] >> (4u * ((i >> 5u) & 1u))) & 0x0F0F0F0Fu;
#if defined(FMT_q5_K)
  v |= ((w[(b + 16u + l) >> 2] >> (i >> 5u)) & 0x01010101u) << 4u;
#endif
  return v;
}
#define WPACK8_FAST  // a chunk: 32 code bytes (and q5_K's 32 high-bit bytes), 16-aligned
void wpack8(uint b, uint i0, out uint v[8]) {
  uint lo[8], sh = 4u * ((i0 >> 5u) & 1u);
  ru32a_run8(b + QS + 32u * (i0 >> 6u), lo);
#if defined(FMT_q5_K)
  uint hi[8];
  ru32a_run8(b + 16u, hi);
#endif
  for (uint j = 0u; j < 8u; ++j) {
    v[j] = (lo[j] >> sh) & 0x0F0F0F0Fu;
#if defined(FMT_q5_K)
    v[j] |= ((hi[j] >> (i0 >> 5u)) & 0x01010101u) << 4u;
#endif
  }
}

#elif defined(FMT_q6_K)
int qcode(uint b, uint i) {  // i = 128h + 32r + l
  uint h = i >> 7u, r = (i >> 5u) & 3u, l = i & 31u;
  uint low = rb(b + 64u * h + 32u * (r & 1u) + l);
  low = r >= 2u ? (low >> 4u) : (low & 15u);
  uint high = (rb(b + 128u + 32u * h + l) >> (2u * r)) & 3u;
  return int(low | (high << 4u)) - 32;
}
float dsub(uint b, uint j) { return rf16(b + 208u) * float(rs8(b + 192u + j)); }
float msub(uint b, uint j) { return 0.0; }
#define WPACK_FAST
#define CODE_BIAS 32
uint wpack4(uint b, uint i) {
  uint h = i >> 7u, r = (i >> 5u) & 3u, l = i & 31u;
  uint low = ru32u(b + 64u * h + 32u * (r & 1u) + l);
  low = (r >= 2u ? (low >> 4u) : low) & 0x0F0F0F0Fu;
  return low | (((ru32u(b + 128u + 32u * h + l) >> (2u * r)) & 0x03030303u) << 4u);
}
#define WPACK8_FAST  // a chunk (i0 a multiple of 32): its low and high bits are two runs of 32 bytes
void wpack8(uint b, uint i0, out uint v[8]) {
  uint h = i0 >> 7u, r = (i0 >> 5u) & 3u, lo[8], hi[8];
  ru32u_run8(b + 64u * h + 32u * (r & 1u), lo);
  ru32u_run8(b + 128u + 32u * h, hi);
  for (uint j = 0u; j < 8u; ++j)
    v[j] = ((r >= 2u ? (lo[j] >> 4u) : lo[j]) & 0x0F0F0F0Fu) | (((hi[j] >> (2u * r)) & 0x03030303u) << 4u);
}

#elif defined(FMT_q8_1)  // activation format, dequant only: {f16 d; f16 s; i8 qs[32]}, s unused
int qcode(uint b, uint i) { return rs8(b + 4u + i); }
float dsub(uint b, uint j) { return rf16(b); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_q8_K)  // activation format, dequant only: {f32 d; i8 qs[256]; i16 bsums[16]}
int qcode(uint b, uint i) { return rs8(b + 4u + i); }
float dsub(uint b, uint j) { return uintBitsToFloat(ru32(b)); }
float msub(uint b, uint j) { return 0.0; }
// d is any f32 (a denormal too) and d * q needs up to 31 bits: round the exact integer
// product once, for either output.
#define VALUE_BITS_EXACT
#define VALUE_F16_BITS_EXACT
uint q8k_round(uint b, uint i, bool to_f16) {
  uint d = ru32(b), m;
  int e = f32_parts(d, m), q = qcode(b, i);
  return round_float_bits((q < 0) != ((d >> 31u) != 0u), m * uint(abs(q)), e, to_f16);  // m |q| < 2^31
}
uint value_bits(uint b, uint i) { return q8k_round(b, i, false); }
uint value_f16_bits(uint b, uint i) { return q8k_round(b, i, true); }

// ---- IQ codebook formats. All scales are d * (small integer) / 2^k with d fp16: at most 16
// significant bits, and no smaller than 2^-24 / 8, so dsub and every dsub * q (|q| <= 127)
// are exact normal f32 values: no denormal, no rounding, on any device.

#elif defined(FMT_iq2_xxs) || defined(FMT_iq2_xs) || defined(FMT_iq2_s)
// Element i = 32 ib + 8 l + j: weight j of 8-group g = i / 8, whose grid row gives 8 byte
// magnitudes; a sign bit per weight.
#if defined(FMT_iq2_xxs)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq2xxsGrid[]; };
// {f16 d; per 32: 4 grid index bytes, then a word: four 7-bit sign indices | scale << 28}
uint iq2_row(uint b, uint g) { return rb(b + 2u + 8u * (g >> 2u) + (g & 3u)); }
uint iq2_grid(uint row, uint j) { return (kIq2xxsGrid[2u * row + (j >> 2u)] >> (8u * (j & 3u))) & 0xFFu; }
uint iq2_signs7(uint b, uint g) { return (ru32(b + 6u + 8u * (g >> 2u)) >> (7u * (g & 3u))) & 127u; }
uint iq2_scale(uint b, uint j) { return ru32(b + 6u + 8u * j) >> 28u; }
#elif defined(FMT_iq2_xs)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq2xsGrid[]; };
// {f16 d; u16 qs[32]: 9-bit grid index | 7-bit sign index << 9; u8 scales[8]: a nibble per 16}
uint iq2_row(uint b, uint g) { return ru16(b + 2u + 2u * g) & 511u; }
uint iq2_grid(uint row, uint j) { return (kIq2xsGrid[2u * row + (j >> 2u)] >> (8u * (j & 3u))) & 0xFFu; }
uint iq2_signs7(uint b, uint g) { return ru16(b + 2u + 2u * g) >> 9u; }
uint iq2_scale(uint b, uint j) { return (rb(b + 66u + (j >> 1u)) >> (4u * (j & 1u))) & 15u; }
#else
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq2sGrid[]; };
// {f16 d; u8 qs[32] low index bits; u8 signs[32]; u8 qh[8]: index bits 8-9 of group 4ib + l
// at bits 2l, 2l+1 of qh[ib]; u8 scales[8] as iq2_xs}. Explicit sign bytes.
uint iq2_row(uint b, uint g) { return rb(b + 2u + g) | (((rb(b + 66u + (g >> 2u)) >> (2u * (g & 3u))) & 3u) << 8u); }
uint iq2_grid(uint row, uint j) { return (kIq2sGrid[2u * row + (j >> 2u)] >> (8u * (j & 3u))) & 0xFFu; }
uint iq2_scale(uint b, uint j) { return (rb(b + 74u + (j >> 1u)) >> (4u * (j & 1u))) & 15u; }
#endif
int qcode(uint b, uint i) {
  uint g = i >> 3u, j = i & 7u;
  int v = int(iq2_grid(iq2_row(b, g), j));
#if defined(FMT_iq2_s)
  uint signs = rb(b + 34u + g);
#else
  uint s7 = iq2_signs7(b, g);
  uint signs = s7 | ((uint(bitCount(s7)) & 1u) << 7u);  // 8th sign: parity of the 7 stored
#endif
  return ((signs >> j) & 1u) != 0u ? -v : v;
}
float dsub(uint b, uint j) { return rf16(b) * float(2u * iq2_scale(b, j) + 1u) * 0.125; }  // d (0.5 + s) / 4
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_iq3_xxs)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq3xxsGrid[]; };
// {f16 d; u8 qs[64]: a grid index per 4 weights; per 32 a word: four 7-bit sign indices
// (one per 8 weights) | scale << 28}. x = d (0.5 + s) / 2 * grid * sign.
int qcode(uint b, uint i) {
  uint v = (kIq3xxsGrid[rb(b + 2u + (i >> 2u))] >> (8u * (i & 3u))) & 0xFFu;
  uint s7 = (ru32(b + 66u + 4u * (i >> 5u)) >> (7u * ((i >> 3u) & 3u))) & 127u;
  uint signs = s7 | ((uint(bitCount(s7)) & 1u) << 7u);  // 8th sign: parity of the 7 stored
  return ((signs >> (i & 7u)) & 1u) != 0u ? -int(v) : int(v);
}
float dsub(uint b, uint j) { return rf16(b) * float(2u * (ru32(b + 66u + 4u * j) >> 28u) + 1u) * 0.25; }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_iq3_s)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq3sGrid[]; };
// {f16 d; u8 qs[64] low index bits (one index per 4 weights); u8 qh[8]: bit k of qh[ib] is
// bit 8 of index 8ib + k; u8 signs[32]: a byte per 8 weights; u8 scales[4]: a nibble per 32}.
// x = d (1 + 2s) * grid * sign.
int qcode(uint b, uint i) {
  uint k = i >> 2u;
  uint row = rb(b + 2u + k) | (((rb(b + 66u + (k >> 3u)) >> (k & 7u)) & 1u) << 8u);
  int v = int((kIq3sGrid[row] >> (8u * (i & 3u))) & 0xFFu);
  return ((rb(b + 74u + (i >> 3u)) >> (i & 7u)) & 1u) != 0u ? -v : v;
}
float dsub(uint b, uint j) { return rf16(b) * float(2u * ((rb(b + 106u + (j >> 1u)) >> (4u * (j & 1u))) & 15u) + 1u); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_iq1_s) || defined(FMT_iq1_m)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kIq1sGrid[]; };
// Grid rows are 8 int8 values in {-1, 0, 1}; x = d (2s + 1) (grid +- 1/8). The code folds the
// delta in: q = 8 grid +- 1, dsub = d (2s + 1) / 8.
int iq1_grid(uint row, uint j) { return int(kIq1sGrid[2u * row + (j >> 2u)] << (24u - 8u * (j & 3u))) >> 24; }
#if defined(FMT_iq1_s)
// {f16 d; u8 qs[32] low index bits; u16 qh[8] per 32: bits 3l..3l+2 index bits 8-10 of group
// l, bits 12-14 the scale, bit 15 the delta sign (set: -1/8)}.
int qcode(uint b, uint i) {
  uint h = ru16(b + 34u + 2u * (i >> 5u));
  uint row = rb(b + 2u + (i >> 3u)) | (((h >> (3u * ((i >> 3u) & 3u))) & 7u) << 8u);
  return 8 * iq1_grid(row, i & 7u) + ((h & 0x8000u) != 0u ? -1 : 1);
}
float dsub(uint b, uint j) { return rf16(b) * float(2u * ((ru16(b + 34u + 2u * j) >> 12u) & 7u) + 1u) * 0.125; }
#else
// {u8 qs[32] low index bits; u8 qh[16]: a nibble per 8 weights (index bits 8-10 | delta sign
// << 3), low nibble first; u16 sc[4]: four 3-bit scales per word (one per 16 weights) in bits
// 0-11, and in bits 12-15 of sc[0..3] the four nibbles of d's fp16 bits, low first}.
int qcode(uint b, uint i) {
  uint g = i >> 3u;
  uint nib = (rb(b + 32u + (g >> 1u)) >> (4u * (g & 1u))) & 15u;
  uint row = rb(b + g) | ((nib & 7u) << 8u);
  return 8 * iq1_grid(row, i & 7u) + ((nib & 8u) != 0u ? -1 : 1);
}
float dsub(uint b, uint j) {
  uint dbits = (ru16(b + 48u) >> 12u) | ((ru16(b + 50u) >> 8u) & 0xF0u) | ((ru16(b + 52u) >> 4u) & 0xF00u) |
               (ru16(b + 54u) & 0xF000u);
  uint s = (ru16(b + 48u + 2u * (j >> 2u)) >> (3u * (j & 3u))) & 7u;
  return unpackHalf2x16(dbits).x * float(2u * s + 1u) * 0.125;
}
#endif
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_iq4_nl) || defined(FMT_iq4_xs)
layout(std430, binding = TABLE_BINDING) readonly buffer Table { uint kValuesIq4nl[]; };  // 16 int8
int iq4_value(uint c) { return int(kValuesIq4nl[c >> 2u] << (24u - 8u * (c & 3u))) >> 24; }
#if defined(FMT_iq4_nl)
// {f16 d; u8 qs[16]}: nibbles in q4_0 order (low nibbles elements 0..15), x = d * kvalues[nibble].
int qcode(uint b, uint i) { return iq4_value((rb(b + 2u + (i & 15u)) >> (4u * (i >> 4u))) & 15u); }
float dsub(uint b, uint j) { return rf16(b); }
#else
// {f16 d; u16 scales_h: 2 bits per 32; u8 scales_l[4]: a nibble per 32; u8 qs[128]: 16 bytes
// per 32 in q4_0 order}. x = d (ls - 32) kvalues[nibble], ls 6 bits.
int qcode(uint b, uint i) {
  uint r = i & 31u;
  return iq4_value((rb(b + 8u + 16u * (i >> 5u) + (r & 15u)) >> (4u * (r >> 4u))) & 15u);
}
float dsub(uint b, uint j) {
  uint ls = ((rb(b + 4u + (j >> 1u)) >> (4u * (j & 1u))) & 15u) | (((ru16(b + 2u) >> (2u * j)) & 3u) << 4u);
  return rf16(b) * float(int(ls) - 32);
}
#endif
float msub(uint b, uint j) { return 0.0; }

// ---- Ternary: x = d (code - 1), one fp16 d per 256.

#elif defined(FMT_tq1_0)
// {u8 qs[48]; u8 qh[4]; f16 d}: a byte holds base-3 digits as a fraction of 256; digit n of
// byte c is the top digit of (c * 3^n mod 256): ((c 3^n) & 255) * 3 >> 8. Elements 0..159: digit
// i / 32 of qs[i % 32]; 160..239: digit of qs[32..47] per 16; 240..255: digit of qh per 4.
int qcode(uint b, uint i) {
  uint off, n;
  if (i < 160u) { off = i & 31u; n = i >> 5u; }
  else if (i < 240u) { off = 32u + ((i - 160u) & 15u); n = (i - 160u) >> 4u; }
  else { off = 48u + ((i - 240u) & 3u); n = (i - 240u) >> 2u; }
  const uint pow3[5] = uint[5](1u, 3u, 9u, 27u, 81u);
  uint t = (rb(b + off) * pow3[n]) & 255u;
  return int((t * 3u) >> 8u) - 1;
}
float dsub(uint b, uint j) { return rf16(b + 52u); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_tq2_0)
// {u8 qs[64]; f16 d}: element 128h + 32l + m is bits 2l..2l+1 of qs[32h + m].
int qcode(uint b, uint i) { return int((rb(b + 32u * (i >> 7u) + (i & 31u)) >> (2u * ((i >> 5u) & 3u))) & 3u) - 1; }
float dsub(uint b, uint j) { return rf16(b + 64u); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_nvfp4)
// {u8 d[4]; u8 qs[32]}: sub-block s (elements 16s..16s+15) has its codes in qs[8s..8s+7], the low
// nibble of qs[8s+j] element 16s+j, the high nibble element 16s+8+j. code = twice the E2M1 value,
// dsub = UE4M3(d[s]) / 2 (bit 7 ignored, 0x7F is 0): products exact in f32.
int qcode(uint b, uint i) {
  uint byte = rb(b + 4u + 8u * (i >> 4u) + (i & 7u));
  uint nib = (i & 8u) == 0u ? (byte & 15u) : (byte >> 4u);
  const int mag[8] = int[8](0, 1, 2, 3, 4, 6, 8, 12);
  int v = mag[nib & 7u];
  return (nib & 8u) != 0u ? -v : v;
}
float dsub(uint b, uint j) {
  uint x = rb(b + j);
  if (x == 0x7Fu) return 0.0;
  uint e = (x >> 3u) & 15u, m = x & 7u;
  return e == 0u ? ldexp(float(m), -10) : ldexp(float(8u + m), int(e) - 11);
}
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_q1_0)
// {f16 d; u8 qs[16]}: bit i % 8 of qs[i / 8] set is +d, clear -d.
int qcode(uint b, uint i) { return ((rb(b + 2u + (i >> 3u)) >> (i & 7u)) & 1u) != 0u ? 1 : -1; }
float dsub(uint b, uint j) { return rf16(b); }
float msub(uint b, uint j) { return 0.0; }

#elif defined(FMT_q2_0)
// {f16 d; u8 qs[16]}: element i is bits 2(i % 4).. of qs[i / 4], x = d * (code - 1).
int qcode(uint b, uint i) { return int((rb(b + 2u + (i >> 2u)) >> (2u * (i & 3u))) & 3u) - 1; }
float dsub(uint b, uint j) { return rf16(b); }
float msub(uint b, uint j) { return 0.0; }

// ---- FP8 with an f32 scale per 32: {u32 scale bits; u8 q[32]}, x = scale * fp8(q). The
// product has up to 28 significant bits, and the scale may be an f32 denormal: both outputs
// are rounded once from the exact integer product.

#elif defined(FMT_fp8_e4m3) || defined(FMT_fp8_e5m2)
#define QVALUE_FLOAT
#if defined(FMT_fp8_e4m3)
#define FP8_MANT 3u  // E4M3 "fn": bias 7, no Inf (0x7F/0xFF are NaN: invalid blocks)
#define FP8_BIAS 7
#else
#define FP8_MANT 2u  // E5M2: bias 15 (exponent 31 is Inf/NaN: invalid blocks)
#define FP8_BIAS 15
#endif
// |fp8(c)| = m * 2^e with m an integer (the significand with its hidden bit).
int fp8_parts(uint c, out uint m) {
  uint ex = (c & 0x7Fu) >> FP8_MANT, mant = c & ((1u << FP8_MANT) - 1u);
  m = ex == 0u ? mant : (mant | (1u << FP8_MANT));
  return int(max(ex, 1u)) - FP8_BIAS - int(FP8_MANT);
}
float qvalue(uint b, uint i) {  // exact: at most 4 significant bits, no smaller than 2^-16
  uint c = rb(b + 4u + i), m;
  int e = fp8_parts(c, m);
  float v = ldexp(float(m), e);
  return (c & 0x80u) != 0u ? -v : v;
}
float dsub(uint b, uint j) { return uintBitsToFloat(ru32(b)); }
float msub(uint b, uint j) { return 0.0; }
#define VALUE_BITS_EXACT
#define VALUE_F16_BITS_EXACT
uint fp8_round(uint b, uint i, bool to_f16) {
  uint d = ru32(b), c = rb(b + 4u + i), ms, mq;
  int e = f32_parts(d, ms);
  e += fp8_parts(c, mq);
  return round_float_bits((c >> 7u) != (d >> 31u), ms * mq, e, to_f16);  // ms mq < 2^28
}
uint value_bits(uint b, uint i) { return fp8_round(b, i, false); }
uint value_f16_bits(uint b, uint i) { return fp8_round(b, i, true); }

#else
#error "no FMT_<format> defined"
#endif

#ifndef QVALUE_FLOAT
float qvalue(uint b, uint i) { return float(qcode(b, i)); }

// ---- The int8 path (matvec_q8.comp, gemm_q8.comp): codes i..i+3 (i a multiple of 4) as
// four signed bytes, each code + CODE_BIAS (the kernels take CODE_BIAS * sum(activation
// codes) off again, in integers). Formats with a fast WPACK_FAST read whole words above;
// the others pack their codes one by one. HAS_MIN: the format has a sub-block offset;
// DSUB_EXP: its scale is 2^dsub_exp(b, j), applied as an exponent.
#ifndef WPACK_FAST
#define CODE_BIAS 0
uint wpack4(uint b, uint i) {
  return (uint(qcode(b, i)) & 255u) | ((uint(qcode(b, i + 1u)) & 255u) << 8u) |
         ((uint(qcode(b, i + 2u)) & 255u) << 16u) | (uint(qcode(b, i + 3u)) << 24u);
}
#endif
// The 32 codes of the chunk at element i0 (a multiple of 32) as eight packed words.
#ifndef WPACK8_FAST
void wpack8(uint b, uint i0, out uint v[8]) {
  for (uint j = 0u; j < 8u; ++j) v[j] = wpack4(b, i0 + 4u * j);
}
#endif
#endif
