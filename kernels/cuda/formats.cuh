// Per-format block access on the device: the format axis of the CUDA kernels, one struct
// per format (Fmt_<name>), written from the block layouts (ggml src/ggml-common.h; fp8:
// qgate's oracles/formats/fp8.cpp). Each gives
//   QK, BYTES, SUB         elements per block, bytes per block, elements per sub-block: the
//                          format's formats.inc row (QG_GEOMETRY, oracles/formats/geometry.hpp)
//   MIN                    the format has a per-sub-block offset (x = dsub*q - msub)
//   code(b, i, t)          integer code of element i (|code| <= 127), integer formats
//   dsub(b, j), msub(b, j) sub-block scale and offset, EXACT as doubles; every one is also
//                          an exact f32 (fp16 d times a small integer over 2^k, an f32
//                          scale, or a power of two >= 2^-128), so (float)dsub loses nothing
//   value(b, i)            float formats (FLOAT): the exact element value as a double
// Codebook formats read the oracles' tables (oracles/formats/iq_tables.hpp), uploaded to
// device memory as they are; `t` carries their device addresses.
#pragma once
#include <cstdint>

#include "kernels/cuda/iq_tables_dev.hpp"
#include "oracles/formats/geometry.hpp"
#include "backends/cuda/vendor.cuh"

namespace qgate::cuk {

#define QG_DEV __device__ __forceinline__
#define QG_GEOMETRY(G) static constexpr int QK = G::elems, BYTES = G::bytes, SUB = G::sub

QG_DEV uint32_t rb(const uint8_t* b, int o) { return b[o]; }
QG_DEV int32_t rs8(const uint8_t* b, int o) { return static_cast<int8_t>(b[o]); }
QG_DEV uint32_t ru16(const uint8_t* b, int o) { return b[o] | (uint32_t(b[o + 1]) << 8); }
QG_DEV uint32_t ru32(const uint8_t* b, int o) { return ru16(b, o) | (ru16(b, o + 2) << 16); }
// IEEE binary16 / binary32 bits -> the exact value as a double (integer arithmetic).
QG_DEV double f16_value(uint32_t h) {
  const uint32_t e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(double(m), -24) : e == 31 ? (m ? __longlong_as_double(0x7FF8000000000000ll) : INFINITY)
                                                      : ldexp(double(m | 1024), int(e) - 25);
  return (h & 0x8000) ? -v : v;
}
QG_DEV double rf16(const uint8_t* b, int o) { return f16_value(ru16(b, o)); }
QG_DEV double rf32(const uint8_t* b, int o) { return double(__uint_as_float(ru32(b, o))); }

// ---- legacy ----
template <class G, int Qs, int Qh, int Offset, bool Min>
struct LegacyNibbles {
  QG_GEOMETRY(G);
  static constexpr bool MIN = Min, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    uint32_t nib = i < 16 ? (rb(b, Qs + i) & 15) : (rb(b, Qs + i - 16) >> 4);
    if constexpr (Qh > 0) nib |= ((ru32(b, Qh) >> i) & 1) << 4;
    return int(nib) - Offset;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 0); }
  QG_DEV static double msub(const uint8_t* b, int) { return Min ? -rf16(b, 2) : 0.0; }
};
struct Fmt_q4_0 : LegacyNibbles<block::q4_0, 2, 0, 8, false> {};
struct Fmt_q4_1 : LegacyNibbles<block::q4_1, 4, 0, 0, true> {};
struct Fmt_q5_0 : LegacyNibbles<block::q5_0, 6, 2, 16, false> {};
struct Fmt_q5_1 : LegacyNibbles<block::q5_1, 8, 4, 0, true> {};

// Blocks of int8 codes after an fp16 (q8_0) or {fp16 d, fp16 s} (q8_1) header.
template <class G, int Codes, bool F32Scale>
struct Int8Codes {
  QG_GEOMETRY(G);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) { return rs8(b, Codes + i); }
  QG_DEV static double dsub(const uint8_t* b, int) { return F32Scale ? rf32(b, 0) : rf16(b, 0); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_q8_0 : Int8Codes<block::q8_0, 2, false> {};
struct Fmt_q8_1 : Int8Codes<block::q8_1, 4, false> {};    // activation format; s unused
struct Fmt_q8_K : Int8Codes<block::q8_K, 4, true> {};   // activation format; bsums unused

struct Fmt_mxfp4 {  // {e8m0 e; u8 qs[16]}: code = twice the E2M1 value, dsub = 2^(e-128)
  QG_GEOMETRY(block::mxfp4);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const uint32_t nib = i < 16 ? (rb(b, 1 + i) & 15) : (rb(b, 1 + i - 16) >> 4);
    constexpr int mag[8] = {0, 1, 2, 3, 4, 6, 8, 12};
    const int v = mag[nib & 7];
    return (nib & 8) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return ldexp(1.0, int(rb(b, 0)) - 128); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};

// ---- ggml's nvfp4, q1_0, q2_0 (family lowbit) ----
// nvfp4: {u8 d[4]; u8 qs[32]}; sub-block s (elements 16s..16s+15) reads qs[8s..8s+7], low nibble
// element 16s+j, high nibble 16s+8+j; code = twice the E2M1 value, dsub = UE4M3 / 2 =
// (1 + m/8) 2^(e-8), or m 2^-10 for e = 0 (bit 7 ignored, 0x7F is 0): built from its bits.
struct Fmt_nvfp4 {
  QG_GEOMETRY(block::nvfp4);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const uint32_t byte = rb(b, 4 + 8 * (i >> 4) + (i & 7));
    const uint32_t nib = (i & 8) ? (byte >> 4) : (byte & 15);
    const int v = int((0xC8643210u >> (4 * (nib & 7))) & 15);  // 0 1 2 3 4 6 8 12, no local array
    return (nib & 8) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    const uint32_t x = rb(b, j), e = (x >> 3) & 15, m = x & 7;
    const float v = e == 0 ? float(m) * 0x1p-10f : __uint_as_float(((e + 119u) << 23) | (m << 20));
    return x == 0x7F ? 0.0 : double(v);
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
// q1_0: {f16 d; u8 qs[16]}, 128 elements: bit i % 8 of qs[i / 8] set is +d, clear -d.
struct Fmt_q1_0 {
  QG_GEOMETRY(block::q1_0);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    return int((rb(b, 2 + (i >> 3)) >> (i & 7)) & 1) * 2 - 1;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 0); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
// q2_0: {f16 d; u8 qs[16]}, 64 elements: bits 2(i % 4).. of qs[i / 4], x = d (code - 1).
struct Fmt_q2_0 {
  QG_GEOMETRY(block::q2_0);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    return int((rb(b, 2 + (i >> 2)) >> (2 * (i & 3))) & 3) - 1;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 0); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};

// ---- K-quants ----
struct Fmt_q2_K {  // {u8 scales[16]: scale | min << 4; u8 qs[64]; f16 d; f16 dmin}
  QG_GEOMETRY(block::q2_K);
  static constexpr bool MIN = true, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const int h = i >> 7, g = (i >> 5) & 3, l = i & 31;
    return int((rb(b, 16 + 32 * h + l) >> (2 * g)) & 3);
  }
  QG_DEV static double dsub(const uint8_t* b, int j) { return rf16(b, 80) * double(rb(b, j) & 15); }
  QG_DEV static double msub(const uint8_t* b, int j) { return rf16(b, 82) * double(rb(b, j) >> 4); }
};
struct Fmt_q3_K {  // {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d}
  QG_GEOMETRY(block::q3_K);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const int h = i >> 7, g = (i >> 5) & 3, l = i & 31;
    const int lo = int((rb(b, 32 + 32 * h + l) >> (2 * g)) & 3);
    return ((rb(b, l) >> (4 * h + g)) & 1) ? lo : lo - 4;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    const uint32_t lo = j < 8 ? (rb(b, 96 + j) & 15) : (rb(b, 96 + j - 8) >> 4);
    const uint32_t hi = (rb(b, 104 + (j & 3)) >> (2 * (j >> 2))) & 3;
    return rf16(b, 108) * double(int(lo | (hi << 4)) - 32);
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
// {f16 d; f16 dmin; u8 scales[12] (6-bit scale and min per 32); [q5_K: u8 qh[32]]; u8 qs[128]}
template <class G, int Qs, bool High>
struct Q45K {
  QG_GEOMETRY(G);
  static constexpr int QS = Qs;         // byte offset of qs[128]
  static constexpr bool HIGH = High;    // q5_K: qh[32] at byte 16, bit j of qh[l] = bit 4 of element 32 j + l
  static constexpr bool MIN = true, FLOAT = false;
  QG_DEV static uint32_t scale6(const uint8_t* b, int j, int which) {
    if (j < 4) return rb(b, 4 + j + 4 * which) & 63;
    const uint32_t byte = rb(b, 4 + j + 4);
    const uint32_t low = which == 0 ? (byte & 15) : (byte >> 4);
    return low | ((rb(b, 4 + j - 4 + 4 * which) >> 6) << 4);
  }
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const int c = i >> 6, l = i & 31;
    const uint32_t byte = rb(b, Qs + 32 * c + l);
    uint32_t q = (i & 32) ? (byte >> 4) : (byte & 15);
    if constexpr (High) q |= ((rb(b, 16 + l) >> (i >> 5)) & 1) << 4;
    return int(q);
  }
  QG_DEV static double dsub(const uint8_t* b, int j) { return rf16(b, 0) * double(scale6(b, j, 0)); }
  QG_DEV static double msub(const uint8_t* b, int j) { return rf16(b, 2) * double(scale6(b, j, 1)); }
};
struct Fmt_q4_K : Q45K<block::q4_K, 16, false> {};
struct Fmt_q5_K : Q45K<block::q5_K, 48, true> {};
struct Fmt_q6_K {  // {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}
  QG_GEOMETRY(block::q6_K);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    const int h = i >> 7, r = (i >> 5) & 3, l = i & 31;
    uint32_t low = rb(b, 64 * h + 32 * (r & 1) + l);
    low = r >= 2 ? (low >> 4) : (low & 15);
    const uint32_t high = (rb(b, 128 + 32 * h + l) >> (2 * r)) & 3;
    return int(low | (high << 4)) - 32;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) { return rf16(b, 208) * double(rs8(b, 192 + j)); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};

// ---- IQ codebook formats: scales d * (small integer) / 2^k ----
QG_DEV uint32_t grid8(const uint64_t* g, uint32_t row, int j) { return uint32_t(g[row] >> (8 * j)) & 0xFF; }
QG_DEV uint32_t parity_signs(uint32_t s7) { return s7 | ((__popc(s7) & 1) << 7); }  // 8th sign: parity of 7

struct Fmt_iq2_xxs {  // {f16 d; per 32: 4 grid index bytes, a word: four 7-bit sign indices | scale << 28}
  QG_GEOMETRY(block::iq2_xxs);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int g = i >> 3, j = i & 7;
    const int v = int(grid8(t.iq2xxs, rb(b, 2 + 8 * (g >> 2) + (g & 3)), j));
    const uint32_t s = parity_signs((ru32(b, 6 + 8 * (g >> 2)) >> (7 * (g & 3))) & 127);
    return ((s >> j) & 1) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) { return rf16(b, 0) * double(2 * (ru32(b, 6 + 8 * j) >> 28) + 1) * 0.125; }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq2_xs {  // {f16 d; u16 qs[32]: 9-bit index | 7-bit sign index << 9; u8 scales[8]}
  QG_GEOMETRY(block::iq2_xs);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int g = i >> 3, j = i & 7;
    const uint32_t w = ru16(b, 2 + 2 * g);
    const int v = int(grid8(t.iq2xs, w & 511, j));
    return ((parity_signs(w >> 9) >> j) & 1) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    return rf16(b, 0) * double(2 * ((rb(b, 66 + (j >> 1)) >> (4 * (j & 1))) & 15) + 1) * 0.125;
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq2_s {  // {f16 d; u8 qs[32]; u8 signs[32]; u8 qh[8]; u8 scales[8]}
  QG_GEOMETRY(block::iq2_s);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int g = i >> 3, j = i & 7;
    const uint32_t row = rb(b, 2 + g) | (((rb(b, 66 + (g >> 2)) >> (2 * (g & 3))) & 3) << 8);
    const int v = int(grid8(t.iq2s, row, j));
    return ((rb(b, 34 + g) >> j) & 1) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    return rf16(b, 0) * double(2 * ((rb(b, 74 + (j >> 1)) >> (4 * (j & 1))) & 15) + 1) * 0.125;
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq3_xxs {  // {f16 d; u8 qs[64]: index per 4; per 32 a word: four 7-bit sign indices | scale << 28}
  QG_GEOMETRY(block::iq3_xxs);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int v = int((t.iq3xxs[rb(b, 2 + (i >> 2))] >> (8 * (i & 3))) & 0xFF);
    const uint32_t s = parity_signs((ru32(b, 66 + 4 * (i >> 5)) >> (7 * ((i >> 3) & 3))) & 127);
    return ((s >> (i & 7)) & 1) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) { return rf16(b, 0) * double(2 * (ru32(b, 66 + 4 * j) >> 28) + 1) * 0.25; }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq3_s {  // {f16 d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]}
  QG_GEOMETRY(block::iq3_s);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int k = i >> 2;
    const uint32_t row = rb(b, 2 + k) | (((rb(b, 66 + (k >> 3)) >> (k & 7)) & 1) << 8);
    const int v = int((t.iq3s[row] >> (8 * (i & 3))) & 0xFF);
    return ((rb(b, 74 + (i >> 3)) >> (i & 7)) & 1) ? -v : v;
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    return rf16(b, 0) * double(2 * ((rb(b, 106 + (j >> 1)) >> (4 * (j & 1))) & 15) + 1);
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
// IQ1: grid values in {-1, 0, 1}; the code folds the +-1/8 delta in: q = 8 grid +- 1.
QG_DEV int grid1(const IqTables& t, uint32_t row, int j) { return int(int8_t(uint8_t(t.iq1s[row] >> (8 * j)))); }
struct Fmt_iq1_s {  // {f16 d; u8 qs[32]; u16 qh[8]: index bits 8-10 per 8, scale bits 12-14, delta sign bit 15}
  QG_GEOMETRY(block::iq1_s);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const uint32_t h = ru16(b, 34 + 2 * (i >> 5));
    const uint32_t row = rb(b, 2 + (i >> 3)) | (((h >> (3 * ((i >> 3) & 3))) & 7) << 8);
    return 8 * grid1(t, row, i & 7) + ((h & 0x8000) ? -1 : 1);
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    return rf16(b, 0) * double(2 * ((ru16(b, 34 + 2 * j) >> 12) & 7) + 1) * 0.125;
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq1_m {  // {u8 qs[32]; u8 qh[16]: nibble per 8 (index bits 8-10 | delta sign << 3); u16 sc[4]: scales, d's nibbles}
  QG_GEOMETRY(block::iq1_m);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int g = i >> 3;
    const uint32_t nib = (rb(b, 32 + (g >> 1)) >> (4 * (g & 1))) & 15;
    const uint32_t row = rb(b, g) | ((nib & 7) << 8);
    return 8 * grid1(t, row, i & 7) + ((nib & 8) ? -1 : 1);
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    const uint32_t dbits = (ru16(b, 48) >> 12) | ((ru16(b, 50) >> 8) & 0xF0) | ((ru16(b, 52) >> 4) & 0xF00) |
                           (ru16(b, 54) & 0xF000);
    const uint32_t s = (ru16(b, 48 + 2 * (j >> 2)) >> (3 * (j & 3))) & 7;
    return f16_value(dbits) * double(2 * s + 1) * 0.125;
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq4_nl {  // {f16 d; u8 qs[16]} nibbles in q4_0 order, x = d * kvalues[nibble]
  QG_GEOMETRY(block::iq4_nl);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    return t.iq4nl[(rb(b, 2 + (i & 15)) >> (4 * (i >> 4))) & 15];
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 0); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_iq4_xs {  // {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}, x = d (ls - 32) kvalues[nibble]
  QG_GEOMETRY(block::iq4_xs);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables& t) {
    const int r = i & 31;
    return t.iq4nl[(rb(b, 8 + 16 * (i >> 5) + (r & 15)) >> (4 * (r >> 4))) & 15];
  }
  QG_DEV static double dsub(const uint8_t* b, int j) {
    const uint32_t ls = ((rb(b, 4 + (j >> 1)) >> (4 * (j & 1))) & 15) | (((ru16(b, 2) >> (2 * j)) & 3) << 4);
    return rf16(b, 0) * double(int(ls) - 32);
  }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};

// The 16-entry lookup formats split by sign, for the packed decoders (matvec.cuh
// ChunkDecoder, gemm_decode.cuh): in both tables the codes 0..7 have one sign and 8..15 the
// other (mxfp4: + then -, the sign bit; iq4_nl's values: - then +), so each half is an
// 8-entry table of magnitudes, all < 128: m[0], m[1] those of codes 0..7, m[2], m[3] those
// of codes 8..15, 4 a word, lowest first.
struct SplitLut {
  uint32_t m[4];
};
// Their packed decoders take a word of nibbles as the lookup's selector, so the codes come
// in the nibble order: int 2i holds elements 4i, 16+4i, 4i+1, 16+4i+1 of the chunk and int
// 2i+1 elements 4i+2, 16+4i+2, 4i+3, 16+4i+3. The 8 activation ints of a chunk (int e:
// elements 4e..4e+3) into that order, so every product pairs the same weight and
// activation codes and the integer sums are the same.
QG_DEV void split_lut_order(int (&v)[8]) {
  int p[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    p[2 * i] = int(qg_byte_perm(uint32_t(v[i]), uint32_t(v[i + 4]), 0x5140u));
    p[2 * i + 1] = int(qg_byte_perm(uint32_t(v[i]), uint32_t(v[i + 4]), 0x7362u));
  }
#pragma unroll
  for (int e = 0; e < 8; ++e) v[e] = p[e];
}
QG_DEV SplitLut split_lut_mxfp4() {  // twice the E2M1 magnitudes 0 1 2 3 4 6 8 12, both halves
  return SplitLut{{0x03020100u, 0x0C080604u, 0x03020100u, 0x0C080604u}};
}
QG_DEV SplitLut split_lut_iq4nl(const IqTables& t) {  // -127 .. -10 (negated), then 1 .. 113
  SplitLut l;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint32_t v = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) v |= uint32_t(uint8_t(i < 2 ? -t.iq4nl[4 * i + b] : t.iq4nl[4 * i + b])) << (8 * b);
    l.m[i] = v;
  }
  return l;
}

// ---- ternary: x = d (code - 1) ----
struct Fmt_tq1_0 {  // {u8 qs[48]; u8 qh[4]; f16 d}: base-3 digits as fractions of 256
  QG_GEOMETRY(block::tq1_0);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    int off, n;
    if (i < 160) { off = i & 31; n = i >> 5; }
    else if (i < 240) { off = 32 + ((i - 160) & 15); n = (i - 160) >> 4; }
    else { off = 48 + ((i - 240) & 3); n = (i - 240) >> 2; }
    constexpr uint32_t pow3[5] = {1, 3, 9, 27, 81};
    const uint32_t t = (rb(b, off) * pow3[n]) & 255;
    return int((t * 3) >> 8) - 1;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 52); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};
struct Fmt_tq2_0 {  // {u8 qs[64]; f16 d}: element 128h + 32l + m is bits 2l..2l+1 of qs[32h + m]
  QG_GEOMETRY(block::tq2_0);
  static constexpr bool MIN = false, FLOAT = false;
  QG_DEV static int code(const uint8_t* b, int i, const IqTables&) {
    return int((rb(b, 32 * (i >> 7) + (i & 31)) >> (2 * ((i >> 5) & 3))) & 3) - 1;
  }
  QG_DEV static double dsub(const uint8_t* b, int) { return rf16(b, 64); }
  QG_DEV static double msub(const uint8_t*, int) { return 0.0; }
};

// ---- fp8 with an f32 scale per 32: {u32 scale bits; u8 q[32]}, x = scale * fp8(q) ----
template <class G, int Mant, int Bias>
struct Fp8Block {
  QG_GEOMETRY(G);
  static constexpr bool MIN = false, FLOAT = true;
  QG_DEV static double value(const uint8_t* b, int i) {  // exact: <= 28 significant bits
    const uint32_t c = rb(b, 4 + i), ex = (c & 0x7F) >> Mant, mant = c & ((1u << Mant) - 1);
    const uint32_t m = ex == 0 ? mant : (mant | (1u << Mant));
    const double v = ldexp(double(m), int(ex > 1 ? ex : 1) - Bias - Mant) * rf32(b, 0);
    return (c & 0x80) ? -v : v;
  }
  QG_DEV static float scale(const uint8_t* b) { return __uint_as_float(ru32(b, 0)); }
  QG_DEV static float code_value(uint32_t c) {  // fp8 code byte c unscaled: exact in f32
    const uint32_t ex = (c & 0x7F) >> Mant, mant = c & ((1u << Mant) - 1);
    const uint32_t m = ex == 0 ? mant : (mant | (1u << Mant));
    const float v = ldexpf(float(m), int(ex > 1 ? ex : 1) - Bias - Mant);
    return (c & 0x80) ? -v : v;
  }
};
struct Fmt_fp8_e4m3 : Fp8Block<block::fp8_e4m3, 3, 7> {};   // E4M3 "fn"
struct Fmt_fp8_e5m2 : Fp8Block<block::fp8_e5m2, 2, 15> {};

}  // namespace qgate::cuk
