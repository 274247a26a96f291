// Whole-chunk weight decoders of the prefill GEMM (gemm.cuh): the 32 codes of one 32-element
// chunk as 8 packed ints (int e holds elements 4e..4e+3, lowest first; the 16-entry lookup
// formats in the nibble order, kPermX below) and the chunk's
// sub-block scales and offsets as f32, from word loads and byte-wise integer arithmetic
// instead of one formats.cuh code() call per element. Each gives exactly what the generic
// path gives (BlockWeights<F>::chunk: F::code per element, (float)F::dsub / F::msub):
// the codes are the same integers, and every scale is an fp16 value times a small integer
// (or mxfp4's power of two), exact in f32, formed here in f32 (fp16 -> f32 exactly, then
// one exact product).
// Gated with the GEMM by its properties (random_blocks: every code and scale pattern).
// Alignment: the weight rows start at multiples of the block size from a base aligned to
// 4 bytes (every device buffer is); q4_K / q5_K / iq4_xs read 4-byte words, q4_0 / q8_0 /
// q6_K / mxfp4 (blocks of 18, 34, 210, 17 bytes) the aligned words around the fields
// (gemm_words).
#pragma once
#include "kernels/cuda/formats.cuh"

namespace qgate::cuk {

// IEEE binary16 bits (the low 16 of h) -> the same value as f32, exactly (the hardware
// conversion: normal and subnormal values exact, infinities kept, NaN stays NaN).
QG_DEV float gemm_f16_to_f32(uint32_t h) { return qg_f16_bits_to_float((unsigned short)(h & 0xFFFFu)); }
QG_DEV uint32_t gemm_u32_4(const uint8_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
// The N aligned words of shared memory from p rounded down to 4 (v[i] at (p & ~3) + 4 i),
// and the bit offset of p in the first: bytes p + o .. p + o + 3 are then
// qg_funnel_rc(v[i], v[i + 1], sh + 8 (o - 4 i)) for any o with the shift in 0..32 -- blocks
// at any byte offset read in one load per word instead of one per byte or half (the last word
// may pass the block by up to 3 bytes: still the raw stage, gemm.cuh GemmGeom).
template <int N>
QG_DEV uint32_t gemm_words(const uint8_t* p, uint32_t (&v)[N]) {
  const uint32_t* a = reinterpret_cast<const uint32_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = a[i];
  return 8 * uint32_t(reinterpret_cast<uintptr_t>(p) & 3);
}
// v - o in every byte, for bytes v in 0..255-(128-o) (no borrow crosses a byte): the
// signed codes of offset formats (o = 8 for q4_0, 32 for q6_K).
template <int O>
QG_DEV int gemm_sub_bytes(uint32_t v) {
  constexpr uint32_t k = uint32_t(128 - O) * 0x01010101u;
  return int((v + k) ^ 0x80808080u);
}

// What a decoder needs besides the block, built once per kernel from the device tables:
// nothing for most formats.
struct NoLut {
  QG_DEV explicit NoLut(const IqTables&) {}
};
// A decoder whose codes are in the chunk's element order (kPermX false) and needs no table.
struct FastPlain {
  static constexpr bool ok = true, kPermX = false;
  using Lut = NoLut;
};

// No fast decoder: BlockWeights uses F::code per element.
template <class F>
struct FastChunk {
  static constexpr bool ok = false, kPermX = false;
  using Lut = NoLut;
};

template <>
struct FastChunk<Fmt_q4_0> : FastPlain {  // {f16 d; u8 qs[16]}: element l < 16 low nibble of qs[l], else high of qs[l-16]
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const NoLut&) {
    uint32_t v[5];
    const uint32_t sh = gemm_words(b, v);  // b is 2-byte aligned: sh + 16 <= 32
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const uint32_t x = qg_funnel_rc(v[w], v[w + 1], sh + 16);  // bytes 2 + 4w .. 5 + 4w
      q[w] = gemm_sub_bytes<8>(x & 0x0F0F0F0Fu);
      q[4 + w] = gemm_sub_bytes<8>((x >> 4) & 0x0F0F0F0Fu);
    }
    ds[0] = gemm_f16_to_f32(qg_funnel_rc(v[0], v[1], sh));
    ms[0] = 0.f;
  }
};

template <>
struct FastChunk<Fmt_q8_0> : FastPlain {  // {f16 d; i8 qs[32]}
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const NoLut&) {
    uint32_t v[9];
    const uint32_t sh = gemm_words(b, v);  // b is 2-byte aligned: sh + 16 <= 32
#pragma unroll
    for (int w = 0; w < 8; ++w) q[w] = int(qg_funnel_rc(v[w], v[w + 1], sh + 16));  // bytes 2 + 4w .. 5 + 4w
    ds[0] = gemm_f16_to_f32(qg_funnel_rc(v[0], v[1], sh));
    ms[0] = 0.f;
  }
};

// q4_K / q5_K: chunk c of the super-block is sub-block c; its low nibbles are qs[32(c/2) + l]
// (low half for even c, high for odd), q5_K's fifth bit is bit c of qh[l].
template <class F>
struct FastQ45K : FastPlain {
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[1], float (&ms)[1], const NoLut&) {
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
struct FastChunk<Fmt_q6_K> : FastPlain {  // {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}; chunk c: h = c/4, r = c%4
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[2], float (&ms)[2], const NoLut&) {
    const int h = c >> 2, r = c & 3;
    uint32_t vl[9], vh[9];  // the 32 low-nibble bytes at ql, the 32 high-bit bytes at qh
    const uint32_t sl = gemm_words(b + 64 * h + 32 * (r & 1), vl), shh = gemm_words(b + 128 + 32 * h, vh);
#pragma unroll
    for (int w = 0; w < 8; ++w) {
      const uint32_t lo = (qg_funnel_rc(vl[w], vl[w + 1], sl) >> (4 * (r >> 1))) & 0x0F0F0F0Fu;
      const uint32_t hi = (qg_funnel_rc(vh[w], vh[w + 1], shh) >> (2 * r)) & 0x03030303u;
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

// The 16-entry lookup formats (mxfp4, iq4_xs), as the mat-vec decodes them (matvec.cuh
// ChunkDecoder): each half of the table an 8-entry lookup of magnitudes (formats.cuh
// SplitLut) that gives 0 for the other half's codes (qg_lut8z), and a code is its plus part
// minus its minus part. The selector is the word of packed nibbles itself,
// so the codes come in the nibble order: int 2i holds elements 4i, 16+4i, 4i+1, 16+4i+1 and
// int 2i+1 elements 4i+2, 16+4i+2, 4i+3, 16+4i+3 of the chunk (kPermX: the repacked
// activations are permuted the same way, gemm_pack_acts, so every product pairs the same
// weight and activation codes and the integer sums are the same).
// The 4 codes of the selector nibbles s (low 16 bits) and x = s ^ 0x8888 as signed bytes:
// p - n in each byte, where at most one of the plus part p and minus part n is nonzero and
// both are < 128 (no borrow leaves a byte: 128 + p - n is in 1..255).
template <bool LoPlus>
QG_DEV int gemm_split_lookup(uint32_t s, uint32_t x, const SplitLut& l) {
  const uint32_t lo = qg_lut8z(l.m[0], l.m[1], s), hi = qg_lut8z(l.m[2], l.m[3], x);
  const uint32_t p = LoPlus ? lo : hi, n = LoPlus ? hi : lo;
  return int(((p | 0x80808080u) - n) ^ 0x80808080u);
}
// The 16 codes of 16 bytes of nibbles (4 words w) in the nibble order.
template <bool LoPlus>
QG_DEV void gemm_split_nibbles(const uint32_t (&w)[4], const SplitLut& l, int (&q)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t x = w[i] ^ 0x88888888u;
    q[2 * i] = gemm_split_lookup<LoPlus>(w[i], x, l);
    q[2 * i + 1] = gemm_split_lookup<LoPlus>(w[i] >> 16, x >> 16, l);
  }
}

template <>
struct FastChunk<Fmt_mxfp4> {  // {e8m0 e; u8 qs[16]}: codes twice the E2M1 values, dsub = 2^(e - 128)
  static constexpr bool ok = true, kPermX = true;
  struct Lut : SplitLut {
    QG_DEV explicit Lut(const IqTables&) : SplitLut(split_lut_mxfp4()) {}
  };
  QG_DEV static void decode(const uint8_t* b, int, int (&q)[8], float (&ds)[1], float (&ms)[1], const Lut& l) {
    uint32_t v[5], w[4];
    const uint32_t sh = gemm_words(b, v);  // 17-byte blocks: any byte offset
    const uint32_t e = qg_funnel_rc(v[0], v[1], sh) & 0xFFu;  // byte 0
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = qg_funnel_rc(v[i], v[i + 1], sh + 8);  // bytes 1 + 4i .. 4 + 4i (sh + 8 <= 32)
    gemm_split_nibbles<true>(w, l, q);
    // 2^(e-128): f32 exponent field e - 1, or the subnormals 2^-127, 2^-128
    ds[0] = __uint_as_float(e >= 2 ? (e - 1) << 23 : 0x00200000u << e);
    ms[0] = 0.f;
  }
};

template <>
struct FastChunk<Fmt_iq4_xs> {  // {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]}; chunk c = sub-block c
  static constexpr bool ok = true, kPermX = true;
  struct Lut : SplitLut {
    QG_DEV explicit Lut(const IqTables& t) : SplitLut(split_lut_iq4nl(t)) {}
  };
  QG_DEV static void decode(const uint8_t* b, int c, int (&q)[8], float (&ds)[1], float (&ms)[1], const Lut& l) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = gemm_u32_4(b + 8 + 16 * c + 4 * i);
    gemm_split_nibbles<false>(w, l, q);
    const uint32_t h = gemm_u32_4(b);  // d | scales_h << 16
    const uint32_t ls = ((uint32_t(b[4 + (c >> 1)]) >> (4 * (c & 1))) & 15u) | (((h >> (16 + 2 * c)) & 3u) << 4);
    ds[0] = gemm_f16_to_f32(h & 0xFFFFu) * float(int(ls) - 32);  // exact: 11 x 6 bits
    ms[0] = 0.f;
  }
};

}  // namespace qgate::cuk
