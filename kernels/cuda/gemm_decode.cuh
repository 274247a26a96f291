// Whole-chunk weight decoders of the prefill GEMM (gemm.cuh): the 32 codes of one 32-element
// chunk as 8 packed ints (int e holds elements 4e..4e+3, lowest first) and the chunk's
// sub-block scales and offsets as f32, from word loads and byte-wise integer arithmetic
// instead of one formats.cuh code() call per element. Each gives exactly what the generic
// path gives (BlockWeights<F>::chunk: F::code per element, (float)F::dsub / F::msub):
// the codes are the same integers, and every scale is an fp16 value times a small integer
// (or mxfp4's power of two), exact in f32, formed here in f32 (fp16 -> f32 exactly, then
// one exact product).
// Gated with the GEMM by its properties (random_blocks: every code and scale pattern).
// Alignment: the weight rows start at multiples of the block size from a base aligned to
// 4 bytes (every device buffer is); q4_K / q5_K / iq4_xs read 4-byte words, q4_0 / q8_0 /
// q6_K (blocks of 18, 34, 210 bytes) 2-byte halves, mxfp4 (17 bytes) single bytes.
#pragma once
#include "kernels/cuda/formats.cuh"

namespace qgate::cuk {

// IEEE binary16 bits (the low 16 of h) -> the same value as f32, exactly (the hardware
// conversion: normal and subnormal values exact, infinities kept, NaN stays NaN).
QG_DEV float gemm_f16_to_f32(uint32_t h) { return qg_f16_bits_to_float((unsigned short)(h & 0xFFFFu)); }
QG_DEV uint32_t gemm_u32_2(const uint8_t* p) {  // 4 bytes at a 2-byte aligned address
  const uint16_t* h = reinterpret_cast<const uint16_t*>(p);
  return uint32_t(h[0]) | (uint32_t(h[1]) << 16);
}
QG_DEV uint32_t gemm_u32_4(const uint8_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
// v - o in every byte, for bytes v in 0..255-(128-o) (no borrow crosses a byte): the
// signed codes of offset formats (o = 8 for q4_0, 32 for q6_K).
template <int O>
QG_DEV int gemm_sub_bytes(uint32_t v) {
  constexpr uint32_t k = uint32_t(128 - O) * 0x01010101u;
  return int((v + k) ^ 0x80808080u);
}

// No fast decoder: BlockWeights uses F::code per element.
template <class F>
struct FastChunk {
  static constexpr bool ok = false;
};

template <>
struct FastChunk<Fmt_q4_0> {  // {f16 d; u8 qs[16]}: element l < 16 low nibble of qs[l], else high of qs[l-16]
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const IqTables&) {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const uint32_t v = gemm_u32_2(b + 2 + 4 * w);
      q[w] = gemm_sub_bytes<8>(v & 0x0F0F0F0Fu);
      q[4 + w] = gemm_sub_bytes<8>((v >> 4) & 0x0F0F0F0Fu);
    }
    ds[0] = gemm_f16_to_f32(*reinterpret_cast<const uint16_t*>(b));
    ms[0] = 0.f;
  }
};

template <>
struct FastChunk<Fmt_q8_0> {  // {f16 d; i8 qs[32]}
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const IqTables&) {
#pragma unroll
    for (int w = 0; w < 8; ++w) q[w] = int(gemm_u32_2(b + 2 + 4 * w));
    ds[0] = gemm_f16_to_f32(*reinterpret_cast<const uint16_t*>(b));
    ms[0] = 0.f;
  }
};

// q4_K / q5_K: chunk c of the super-block is sub-block c; its low nibbles are qs[32(c/2) + l]
// (low half for even c, high for odd), q5_K's fifth bit is bit c of qh[l].
template <class F>
struct FastQ45K {
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[1], float (&ms)[1], const IqTables&) {
    const uint8_t* qs = b + F::QS + 32 * (c >> 1);
    const int sh = 4 * (c & 1);
#pragma unroll
    for (int w = 0; w < 8; ++w) {
      uint32_t v = (gemm_u32_4(qs + 4 * w) >> sh) & 0x0F0F0F0Fu;
      if constexpr (F::HIGH) v |= ((gemm_u32_4(b + 16 + 4 * w) >> c) & 0x01010101u) << 4;
      q[w] = int(v);
    }
    const uint32_t dm = gemm_u32_4(b);
    ds[0] = gemm_f16_to_f32(dm & 0xFFFFu) * float(F::scale6(b, c, 0));  // exact: 11 x 6 bits
    ms[0] = gemm_f16_to_f32(dm >> 16) * float(F::scale6(b, c, 1));
  }
};
template <>
struct FastChunk<Fmt_q4_K> : FastQ45K<Fmt_q4_K> {};
template <>
struct FastChunk<Fmt_q5_K> : FastQ45K<Fmt_q5_K> {};

template <>
struct FastChunk<Fmt_q6_K> {  // {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}; chunk c: h = c/4, r = c%4
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[2], float (&ms)[2], const IqTables&) {
    const int h = c >> 2, r = c & 3;
    const uint8_t* ql = b + 64 * h + 32 * (r & 1);
    const uint8_t* qh = b + 128 + 32 * h;
#pragma unroll
    for (int w = 0; w < 8; ++w) {
      const uint32_t lo = (gemm_u32_2(ql + 4 * w) >> (4 * (r >> 1))) & 0x0F0F0F0Fu;
      const uint32_t hi = (gemm_u32_2(qh + 4 * w) >> (2 * r)) & 0x03030303u;
      q[w] = gemm_sub_bytes<32>(lo | (hi << 4));
    }
    const float d = gemm_f16_to_f32(*reinterpret_cast<const uint16_t*>(b + 208));
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      ds[s] = d * float(int(int8_t(b[192 + 2 * c + s])));  // exact: 11 x 8 bits
      ms[s] = 0.f;
    }
  }
};

// 4 codes from a 16-entry int8 table t[0..15] (packed 4 per word, t0 = entries 0..3) at the
// 4 indices n (one per byte, 0..15): two byte selects over entries 0..7 and 8..15 with the
// low 3 index bits as selector nibbles, then bit 3 of each index picks between them.
QG_DEV int gemm_lookup16(uint32_t n, uint32_t t0, uint32_t t1, uint32_t t2, uint32_t t3) {
  const uint32_t x = n & 0x07070707u, y = x | (x >> 4);  // byte 0 of y: n0 | n1 << 4, byte 2: n2 | n3 << 4
  const uint32_t sel = (y & 0xFFu) | ((y >> 8) & 0xFF00u);
  const uint32_t lo = qg_byte_perm(t0, t1, sel), hi = qg_byte_perm(t2, t3, sel);
  const uint32_t m = ((n >> 3) & 0x01010101u) * 0xFFu;
  return int((lo & ~m) | (hi & m));
}
// The q4_0 nibble order (element l < 16: low nibble of byte l, else high nibble of byte
// l - 16) through a 16-entry table: 16 code bytes in 4 words w -> 8 ints.
QG_DEV void gemm_nibbles16(const uint32_t (&w)[4], uint32_t t0, uint32_t t1, uint32_t t2, uint32_t t3, int (&q)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    q[i] = gemm_lookup16(w[i] & 0x0F0F0F0Fu, t0, t1, t2, t3);
    q[4 + i] = gemm_lookup16((w[i] >> 4) & 0x0F0F0F0Fu, t0, t1, t2, t3);
  }
}

template <>
struct FastChunk<Fmt_mxfp4> {  // {e8m0 e; u8 qs[16]}: codes twice the E2M1 values, dsub = 2^(e - 128)
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const IqTables&) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)  // 17-byte blocks: byte loads
      w[i] = uint32_t(b[1 + 4 * i]) | (uint32_t(b[2 + 4 * i]) << 8) | (uint32_t(b[3 + 4 * i]) << 16) |
             (uint32_t(b[4 + 4 * i]) << 24);
    // 0, 1, 2, 3, 4, 6, 8, 12, then the same negated
    gemm_nibbles16(w, 0x03020100u, 0x0C080604u, 0xFDFEFF00u, 0xF4F8FAFCu, q);
    const uint32_t e = b[0];  // 2^(e-128): f32 exponent field e - 1, or the subnormals 2^-127, 2^-128
    ds[0] = __uint_as_float(e >= 2 ? (e - 1) << 23 : 0x00200000u << e);
    ms[0] = 0.f;
  }
};

template <>
struct FastChunk<Fmt_iq4_xs> {  // {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}; chunk c = sub-block c
  static constexpr bool ok = true;
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[1], float (&ms)[1], const IqTables& t) {
    const uint32_t* tv = reinterpret_cast<const uint32_t*>(t.iq4nl);  // the 16 values, 4-byte aligned (own buffer)
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = gemm_u32_4(b + 8 + 16 * c + 4 * i);
    gemm_nibbles16(w, tv[0], tv[1], tv[2], tv[3], q);
    const uint32_t h = gemm_u32_4(b);  // d | scales_h << 16
    const uint32_t ls = ((uint32_t(b[4 + (c >> 1)]) >> (4 * (c & 1))) & 15u) | (((h >> (16 + 2 * c)) & 3u) << 4);
    ds[0] = gemm_f16_to_f32(h & 0xFFFFu) * float(int(ls) - 32);  // exact: 11 x 6 bits
    ms[0] = 0.f;
  }
};

}  // namespace qgate::cuk
