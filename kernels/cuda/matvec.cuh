// Decode mat-vec with quantized activations: y[r][row] = sum_k W[row][k] * x'[r][k], for
// r < m <= 8 activation rows. matvec_row: one thread block per weight row (the MoE decode
// kernel, and the dense one for weights not 16-byte aligned); matvec_kernel below: the same
// chunks, arithmetic and tree, several rows per block, bytes staged in shared memory.
// Each thread takes the row's 32-element chunks c = tid, tid + T, ...: the chunk's weight
// codes packed as int8, exact integer dot products (qg_dp4a) per sub-block against the
// activation codes, then in f32
//   inner = sum_s (dsub_s * isum_s - msub_s * qsum_s);  acc[r] += d_x * inner
// and the T partial sums are added in a fixed tree (tree_sum: shared memory, then 32-lane
// shuffles; deterministic, and valid for any hardware SIMD width).
// Longest rounding chain of a term (registry_cuda.cpp declares it as depth(k)):
//   ceil(k / 32 / T) accumulations + log2(T) tree levels + (2 SPC + 2 <= 6) inside a chunk.
#pragma once
#include <type_traits>

#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {

inline constexpr int kAct_q8_1 = 0, kAct_q8_K = 1;
inline constexpr int kMutNone = 0, kMutCrossedLanes = 1, kMutRowsPastM = 2, kMutGridCapped = 3, kMutSingleSweep = 4;

// The fixed tree of the mat-vecs: the kMatvecThreads partial sums of each of Q values
// added pairwise in log2 T levels, h = T/2, T/4, ..., 1 (sum[t] += sum[t + h] for t < h):
// the levels h >= 32 across 32-lane groups through shared memory, the levels h < 32 inside
// each group by 32-wide shuffles (lane l adds lane l ^ h: for l < h the same pair, and float
// addition is commutative, so every sum is the shared-memory tree's, bit for bit;
// deterministic, valid for any hardware SIMD width). red: Q T floats of shared memory, free
// on entry. Lane 0 of group q % (T / 32) calls out(q, sum of value q).
template <int Q, class Out>
__device__ __forceinline__ void tree_sum(float* red, const float (&v)[Q], int tid, Out&& out) {
  constexpr int T = kMatvecThreads, G = T / 32;
  static_assert(G >= 1 && (G & (G - 1)) == 0, "T is 32 times a power of 2");
#pragma unroll
  for (int q = 0; q < Q; ++q) red[q * T + tid] = v[q];
  __syncthreads();
  const int g = tid / 32, l = tid % 32;
#pragma unroll
  for (int q0 = 0; q0 < Q; q0 += G) {
    const int q = q0 + g;
    if (q >= Q) break;
    float s[G];
#pragma unroll
    for (int j = 0; j < G; ++j) s[j] = red[q * T + l + 32 * j];
#pragma unroll
    for (int h = G / 2; h > 0; h >>= 1)
#pragma unroll
      for (int j = 0; j < h; ++j) s[j] += s[j + h];
    float x = s[0];
#pragma unroll
    for (int h = 16; h > 0; h >>= 1) x += __int_as_float(qg_shfl32(__float_as_int(x), l ^ h));
    if (l == 0) out(q, x);
  }
}
// The one-row-per-block mat-vecs' form: each thread's kMatvecRows partial sums; red[r][0]
// holds row r's sum on return (to every thread).
__device__ __forceinline__ void tree_sum_rows(float (&red)[kMatvecRows][kMatvecThreads], const float (&acc)[kMatvecRows],
                                              int tid) {
  tree_sum<kMatvecRows>(&red[0][0], acc, tid, [&](int q, float x) { red[q][0] = x; });
  __syncthreads();
}

// Elements base .. base + 31 of a weight block as signed 8-bit codes, four to a word, through
// F::code (any format): the int8 dot products' weight operand.
template <class F, int Mut>
__device__ __forceinline__ void pack_codes(const uint8_t* blk, int base, const IqTables& t, int (&wq)[8]) {
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    uint32_t p = 0;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      int i = base + 4 * e + l;
      if constexpr (Mut == kMutCrossedLanes) i ^= 16;  // planted: elements 0..15 read 16..31
      p |= uint32_t(uint8_t(int8_t(F::code(blk, i, t)))) << (8 * l);
    }
    wq[e] = int(p);
  }
}

// One weight row (wrow) against m activation rows: y[r * ldy] = the row's dot product with
// activation row r (r < m). Called by a whole thread block (the reduction is block-wide).
template <class F, int Act, int Mut>
__device__ __forceinline__ void matvec_row(const uint8_t* __restrict__ wrow, const uint8_t* __restrict__ xq,
                                           float* __restrict__ y, int64_t k, int m, int64_t ldy, const IqTables& t) {
  constexpr int CPB = F::QK / 32;                  // chunks per weight block
  constexpr int L = F::SUB < 32 ? F::SUB : 32;     // elements of one sub-block in a chunk
  constexpr int SPC = 32 / L;                      // sub-blocks per chunk
  constexpr int XBYTES = Act == kAct_q8_1 ? block::q8_1::bytes : block::q8_K::bytes;
  const int tid = threadIdx.x;
  const int64_t chunks = k / 32;

  float acc[kMatvecRows];
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) acc[r] = 0.f;

  // planted (kMutSingleSweep): one pass of the loop, the chunks past the first blockDim.x dropped
  const int64_t cend = Mut == kMutSingleSweep && chunks > blockDim.x ? int64_t(blockDim.x) : chunks;
  for (int64_t c = tid; c < cend; c += blockDim.x) {
    const uint8_t* blk = wrow + (c / CPB) * F::BYTES;
    const int base = int(c % CPB) * 32;
    int wq[8];
    pack_codes<F, Mut>(blk, base, t, wq);
    float ds[SPC], ms[SPC];
#pragma unroll
    for (int s = 0; s < SPC; ++s) {
      const int j = (base + s * L) / F::SUB;
      ds[s] = float(F::dsub(blk, j));  // exact (formats.cuh)
      ms[s] = F::MIN ? float(F::msub(blk, j)) : 0.f;
    }
#pragma unroll
    for (int r = 0; r < kMatvecRows; ++r) {
      if (r >= m) break;
      const uint8_t* xb;
      float dx;
      if constexpr (Act == kAct_q8_1) {
        xb = xq + (int64_t(r) * chunks + c) * XBYTES;
        dx = float(rf16(xb, 0));
        xb += 4;
      } else {
        xb = xq + (int64_t(r) * (k / 256) + c / 8) * XBYTES;
        dx = __uint_as_float(ru32(xb, 0));
        xb += 4 + 32 * (c % 8);
      }
      const int* xv = reinterpret_cast<const int*>(xb);  // 4-byte aligned: 36 and 292 are multiples of 4
      float inner = 0.f;
#pragma unroll
      for (int s = 0; s < SPC; ++s) {
        int isum = 0, qsum = 0;
#pragma unroll
        for (int e = s * L / 4; e < (s + 1) * L / 4; ++e) {
          const int xe = xv[e];
          isum = qg_dp4a(wq[e], xe, isum);
          if constexpr (F::MIN) qsum = qg_dp4a(0x01010101, xe, qsum);
        }
        if constexpr (F::MIN) inner += ds[s] * float(isum) - ms[s] * float(qsum);
        else inner += ds[s] * float(isum);
      }
      acc[r] += dx * inner;
    }
  }

  __shared__ float red[kMatvecRows][kMatvecThreads];
  tree_sum_rows(red, acc, tid);
  if (tid == 0) {
    const int rows = Mut == kMutRowsPastM ? kMatvecRows : m;  // planted: every accumulator row written
    for (int r = 0; r < rows; ++r) y[r * ldy] = red[r][0];
  }
}

// ---- the dense decode mat-vec ----
// One thread block of kMatvecThreads threads per kMvWeightRows consecutive weight rows.
// Thread tid takes the same chunks as matvec_row (c = tid, tid + T, ...) in the same order,
// with the same per-chunk arithmetic and the same shared-memory tree, so the result, the
// rounding chain and the declared depth are matvec_row's. What differs is how the bytes
// arrive: the rows' bytes of T consecutive chunks (a "tile", whole weight blocks) are
// copied to shared memory in 16-byte pieces (qg_async_copy16: cp.async on sm_80+), into
// STAGES buffers, so the next tiles' copies are in flight while one tile is decoded, and
// the formats of kMvFast (q4_0, q8_0, mxfp4, iq4_xs, q4_K, q5_K, q6_K) decode a chunk with
// packed word operations (ChunkDecoder) instead of element by element; each chunk's
// activation codes are read once for the block's rows.
template <class F>
inline constexpr bool kMvFast = std::is_same_v<F, Fmt_q4_0> || std::is_same_v<F, Fmt_q8_0> ||
                                std::is_same_v<F, Fmt_mxfp4> || std::is_same_v<F, Fmt_iq4_xs> ||
                                std::is_same_v<F, Fmt_q4_K> || std::is_same_v<F, Fmt_q5_K> ||
                                std::is_same_v<F, Fmt_q6_K>;
// Weight rows per block at M = 1 with the packed decoders: 8 for the 16-entry lookup formats
// (mxfp4, iq4_xs: the permuted activation codes and their sums are shared by more rows; H200
// 55 -> 57 %, 56 -> 60 % of the stream), 4 for the others (8 measured no faster for q4_0 and
// slower for q4_K, whose 8-row tiles fit only two stages); one otherwise (the
// element-by-element decode of 4 rows, or of 8 activation rows, would not fit the registers).
template <class F, int MR>
inline constexpr int kMvWeightRows = !(kMvFast<F> && MR == 1)                                  ? 1
                                     : std::is_same_v<F, Fmt_mxfp4> || std::is_same_v<F, Fmt_iq4_xs> ? 8
                                                                                                     : 4;

template <class F, int MR>
struct MvGeom {
  static constexpr int R = kMvWeightRows<F, MR>;
  static constexpr int CPB = F::QK / 32;
  static constexpr int TILE = kMatvecThreads / CPB * F::BYTES;  // bytes of one row's tile
  static_assert(TILE % 16 == 0, "every tile of a row starts at the row's alignment");
  static constexpr int ROWV = (TILE + 15 + 15) / 16;            // 16-byte pieces, start misaligned by <= 15
  static constexpr int ROW = 16 * ROWV;
  static constexpr int PIECES = R * ROWV;
  static constexpr int VEC = (PIECES + kMatvecThreads - 1) / kMatvecThreads;  // pieces per thread
  static constexpr int RED = R * MR * kMatvecThreads * 4;  // the final tree's floats
  static constexpr int STAGE = R * ROW;  // one tile of the block's rows
  // Tiles in shared memory at once (each stage's copies in flight while earlier ones are
  // decoded): 3, or 2 where 3 would pass 48 KiB (q8_0's 4-row tiles).
  static constexpr int STAGES = 3 * STAGE + 16 <= 48 * 1024 ? 3 : 2;
  static constexpr int SMEM = (STAGES * STAGE + 16 > RED ? STAGES * STAGE + 16 : RED);
  static_assert(kMatvecThreads % CPB == 0, "a tile is whole weight blocks");
};

// 4 bytes at byte offset o of shared memory s (any alignment; reads the next word too).
QG_DEV uint32_t lds_u32(const uint8_t* s, int o) {
  const uint32_t* q = reinterpret_cast<const uint32_t*>(s) + (o >> 2);
  return uint32_t(((uint64_t(q[1]) << 32) | q[0]) >> (8 * (o & 3)));
}
// The N aligned words of shared memory s from byte offset o rounded down to 4: a block of
// N * 4 - 3 bytes at o, whatever its alignment, in one read per word (window_u32 then
// takes any 4 bytes of it), instead of two per word as lds_u32.
template <int N>
QG_DEV void lds_window(const uint8_t* s, int o, uint32_t (&w)[N]) {
  const uint32_t* q = reinterpret_cast<const uint32_t*>(s) + (o >> 2);
#pragma unroll
  for (int i = 0; i < N; ++i) w[i] = q[i];
}
// The 4 bytes at o + 4 e + b of the window lds_window read at o, for sh = 8 ((o & 3) + b)
// <= 32 (e a compile-time index, so w stays in registers).
template <int N>
QG_DEV uint32_t window_u32(const uint32_t (&w)[N], int e, int sh) { return qg_funnel_rc(w[e], w[e + 1], sh); }
// 4 bytes at a 4-aligned byte offset o.
QG_DEV uint32_t lds_a32(const uint8_t* s, int o) { return reinterpret_cast<const uint32_t*>(s)[o >> 2]; }
QG_DEV float f16_lo(uint32_t v) { return qg_f16_bits_to_float((unsigned short)(v & 0xFFFFu)); }

// The codes (int8 lanes: wq[e] holds elements 4e..4e+3 of the chunk) and the f32 sub-block
// scales and offsets of chunk c8 of the weight block at shared-memory offset off. Every
// value is the one F::code / F::dsub / F::msub give (f16 times a small integer is exact in
// f32), so the integer dot products and the f32 arithmetic are matvec_row's.
template <class F, int Mut>
struct ChunkDecoder {
  static constexpr int L = F::SUB < 32 ? F::SUB : 32, SPC = 32 / L;
  static constexpr bool kFast = kMvFast<F> && (Mut != kMutCrossedLanes || std::is_same_v<F, Fmt_q4_0>);
  // The 16-entry lookup formats leave their codes in the byte order of the nibbles (wq[2i]:
  // elements 4i, 16+4i, 4i+1, 16+4i+1; wq[2i+1]: 4i+2, 16+4i+2, 4i+3, 16+4i+3) and the
  // caller permutes the chunk's activation ints the same way once (split_lut_order), shared by
  // the block's weight rows: the same products, so the same integer sums.
  static constexpr bool kPermX = kFast && (std::is_same_v<F, Fmt_mxfp4> || std::is_same_v<F, Fmt_iq4_xs>);
  // They also split each code into a plus and a minus part (kSplit): in both tables the codes
  // 0..7 have one sign and 8..15 the other (mxfp4: + then -, the sign bit; iq4_nl's values:
  // - then +), so the magnitudes of each half are an 8-entry lookup that gives 0 for the other
  // half's codes (qg_lut8z), and isum = sum wq x - sum wn x, the same integer.
  static constexpr bool kSplit = kPermX;
  // q4_0 and q6_K leave their codes unsigned (0..15, 0..63: the same int8 lanes) and the
  // caller subtracts kBias times the activations' code sum from each integer dot product.
  static constexpr int kBias = !kFast ? 0 : std::is_same_v<F, Fmt_q4_0> ? 8 : std::is_same_v<F, Fmt_q6_K> ? 32 : 0;
  // High nibbles left in place (times 16, unsigned bytes: one AND instead of a shift and an
  // AND per word), their dot products by qg_dp4a_us, the sum shifted back (exact: a
  // multiple of 16): q4_0's elements 16..31 (wq[4..7], kHigh16); q4_K's odd chunks, all of
  // wq (kOdd16: the chunk's sum is shifted by 4 (c8 & 1)).
  static constexpr bool kHigh16 = kFast && std::is_same_v<F, Fmt_q4_0> && Mut != kMutCrossedLanes;
  static constexpr bool kOdd16 = kFast && std::is_same_v<F, Fmt_q4_K>;
  // kSplit: the magnitudes of codes 0..7 (tb.m[0], tb.m[1]) and 8..15 (tb.m[2], tb.m[3])
  QG_DEV static SplitLut split_table(const IqTables& t) {
    if constexpr (std::is_same_v<F, Fmt_mxfp4>) return split_lut_mxfp4();
    else if constexpr (std::is_same_v<F, Fmt_iq4_xs>) return split_lut_iq4nl(t);
    else return SplitLut{{0, 0, 0, 0}};
  }
  const SplitLut tb;
  QG_DEV explicit ChunkDecoder(const IqTables& t) : tb(split_table(t)) {}
  // The 8 code words of a nibble word q (kSplit): plus and minus parts, in nibble order.
  QG_DEV void split_word(uint32_t q, int (&wq)[8], int (&wn)[8], int e) const {
    const uint32_t x = q ^ 0x88888888u;  // codes 8..15 read as 0..7, codes 0..7 as zero
    const uint32_t a0 = qg_lut8z(tb.m[0], tb.m[1], q), a1 = qg_lut8z(tb.m[0], tb.m[1], q >> 16);
    const uint32_t b0 = qg_lut8z(tb.m[2], tb.m[3], x), b1 = qg_lut8z(tb.m[2], tb.m[3], x >> 16);
    constexpr bool lo_plus = std::is_same_v<F, Fmt_mxfp4>;
    wq[2 * e] = int(lo_plus ? a0 : b0), wq[2 * e + 1] = int(lo_plus ? a1 : b1);
    wn[2 * e] = int(lo_plus ? b0 : a0), wn[2 * e + 1] = int(lo_plus ? b1 : a1);
  }
  QG_DEV void run(const uint8_t* s, int off, int c8, int (&wq)[8], int (&wn)[8], float (&ds)[SPC], float (&ms)[SPC],
                  const IqTables& t) const {
    // Blocks at any byte offset (q4_0 18 bytes, q8_0 34, mxfp4 17, q6_K 210): their fields
    // as windows of aligned words, each 4 bytes one funnel shift of two words.
    const int a = 8 * (off & 3);
    if constexpr (kFast && std::is_same_v<F, Fmt_q4_0>) {  // {f16 d; u8 qs[16]}
      uint32_t w[5];
      lds_window(s, off, w);
      ds[0] = f16_lo(window_u32(w, 0, a));
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const uint32_t q = window_u32(w, e, a + 16);  // bytes 2 + 4e .. 5 + 4e (a + 16 <= 32: off is even)
        const int lo = int(q & 0x0F0F0F0Fu);  // unsigned (kBias)
        const int hi = kHigh16 ? int(q & 0xF0F0F0F0u) : int((q >> 4) & 0x0F0F0F0Fu);
        wq[e] = Mut == kMutCrossedLanes ? hi : lo;  // planted: elements 0..15 read 16..31
        wq[e + 4] = Mut == kMutCrossedLanes ? lo : hi;
      }
    } else if constexpr (kFast && std::is_same_v<F, Fmt_q8_0>) {  // {f16 d; i8 qs[32]}
      uint32_t w[9];
      lds_window(s, off, w);
      ds[0] = f16_lo(window_u32(w, 0, a));
#pragma unroll
      for (int e = 0; e < 8; ++e) wq[e] = int(window_u32(w, e, a + 16));  // off is even
    } else if constexpr (kFast && std::is_same_v<F, Fmt_mxfp4>) {  // {e8m0 e; u8 qs[16]}
      uint32_t w[5];
      lds_window(s, off, w);
      const uint32_t e8 = window_u32(w, 0, a) & 0xFFu;
      ds[0] = __uint_as_float(e8 >= 2 ? (e8 - 1) << 23 : 0x00400000u >> (1 - e8));  // 2^(e-128), exact
#pragma unroll
      for (int e = 0; e < 4; ++e) split_word(window_u32(w, e, a + 8), wq, wn, e);  // bytes 1 + 4e .. 4 + 4e
    } else if constexpr (kFast && std::is_same_v<F, Fmt_iq4_xs>) {  // {f16 d; u16 sh; u8 sl[4]; u8 qs[128]}, 8-aligned
      const uint32_t h = lds_a32(s, off), sl = lds_a32(s, off + 4);
      const uint32_t ls = ((sl >> (4 * c8)) & 15u) | (((h >> (16 + 2 * c8)) & 3u) << 4);
      ds[0] = f16_lo(h) * float(int(ls) - 32);
#pragma unroll
      for (int e = 0; e < 4; ++e) split_word(lds_a32(s, off + 8 + 16 * c8 + 4 * e), wq, wn, e);
    } else if constexpr (kFast && (std::is_same_v<F, Fmt_q4_K> || std::is_same_v<F, Fmt_q5_K>)) {
      // {f16 d, dmin; u8 sc[12]; [q5_K: u8 qh[32]]; u8 qs[128]}, 16-aligned in the stage (w is,
      // and 144, 176, the tile and the stage are multiples of 16)
      const uint4 hd = *reinterpret_cast<const uint4*>(s + off);  // {d, dmin}, scale bytes 0..3, 4..7, 8..11
      // F::scale6 from the words: sub-block j < 4: bytes j, 4 + j (6 bits); j >= 4: the
      // nibbles of byte 4 + j, with the top 2 bits of bytes j - 4, j as bits 4..5
      const int b = 8 * (c8 & 3);
      const uint32_t sc = c8 < 4 ? (hd.y >> b) & 63u : ((hd.w >> b) & 15u) | ((hd.y >> (b + 2)) & 0x30u);
      const uint32_t mn = c8 < 4 ? (hd.z >> b) & 63u : ((hd.w >> (b + 4)) & 15u) | ((hd.z >> (b + 2)) & 0x30u);
      ds[0] = f16_lo(hd.x) * float(sc);
      ms[0] = f16_lo(hd.x >> 16) * float(mn);
      const int sh = 4 * (c8 & 1);
      const uint4 q0 = *reinterpret_cast<const uint4*>(s + off + F::QS + 32 * (c8 >> 1));
      const uint4 q1 = *reinterpret_cast<const uint4*>(s + off + F::QS + 16 + 32 * (c8 >> 1));
      const uint32_t qw[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
      const uint32_t nm = 0x0F0F0F0Fu << sh;  // kOdd16: the chunk's nibbles in place
#pragma unroll
      for (int e = 0; e < 8; ++e) wq[e] = kOdd16 ? int(qw[e] & nm) : int((qw[e] >> sh) & 0x0F0F0F0Fu);
      if constexpr (F::HIGH) {  // element l's bit 4: bit c8 of qh[l]
        const uint4 h0 = *reinterpret_cast<const uint4*>(s + off + 16);
        const uint4 h1 = *reinterpret_cast<const uint4*>(s + off + 32);
        const uint32_t hw[8] = {h0.x, h0.y, h0.z, h0.w, h1.x, h1.y, h1.z, h1.w};
#pragma unroll
        for (int e = 0; e < 8; ++e) wq[e] |= int(((hw[e] >> c8) & 0x01010101u) << 4);
      }
    } else if constexpr (kFast && std::is_same_v<F, Fmt_q6_K>) {  // {u8 ql[128]; u8 qh[64]; i8 sc[16]; f16 d}
      const int h = c8 >> 2, r = c8 & 3;
      const float d = f16_lo(lds_u32(s, off + 208));
      const uint32_t sc = lds_u32(s, off + 192 + 2 * c8);
      ds[0] = d * float(int(int8_t(uint8_t(sc & 0xFFu))));
      ds[1] = d * float(int(int8_t(uint8_t((sc >> 8) & 0xFFu))));
      // the chunk's 32 low-nibble bytes and 32 high-bit bytes as two windows (off is even)
      uint32_t wl[9], wh[9];
      lds_window(s, off + 64 * h + 32 * (r & 1), wl);
      lds_window(s, off + 128 + 32 * h, wh);
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const uint32_t lo = (window_u32(wl, e, a) >> (4 * (r >> 1))) & 0x0F0F0F0Fu;
        const uint32_t hi = (window_u32(wh, e, a) >> (2 * r)) & 0x03030303u;
        wq[e] = int(lo | (hi << 4));  // unsigned (kBias)
      }
    } else {  // any format: element by element through F::code (as matvec_row)
      const uint8_t* blk = s + off;
      const int base = c8 * 32;
      pack_codes<F, Mut>(blk, base, t, wq);
#pragma unroll
      for (int q = 0; q < SPC; ++q) {
        const int j = (base + q * L) / F::SUB;
        ds[q] = float(F::dsub(blk, j));
        ms[q] = F::MIN ? float(F::msub(blk, j)) : 0.f;
      }
    }
  }
};

// MR: the most activation rows the instance takes (1: the decode case, its accumulators
// alone in registers; kMatvecRows otherwise). Same: every row of the tensor has the first
// row's misalignment (rows a multiple of 16 bytes), so a row's offset in a stage is the
// first row's plus a constant (folded into the shared-memory loads).
template <class F, int Act, int Mut, int MR, bool Same = false>
__global__ void __launch_bounds__(kMatvecThreads, QG_MIN_BLOCKS(5))  // sm_90: <= 96 registers, 5 blocks an SM
    matvec_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                  int64_t k, int m, int64_t ldy, IqTables t) {
  using G = MvGeom<F, MR>;
  using D = ChunkDecoder<F, Mut>;
  constexpr int T = kMatvecThreads, R = G::R, SPC = D::SPC, L = D::L;
  constexpr int XBYTES = Act == kAct_q8_1 ? block::q8_1::bytes : block::q8_K::bytes;
  __shared__ __align__(16) uint8_t sm[G::SMEM];
  const int tid = threadIdx.x;
  const int64_t row0 = int64_t(blockIdx.x) * R;
  const int rows = int(n - row0 < R ? n - row0 : R);
  const int64_t chunks = k / 32, rowbytes = (k / F::QK) * F::BYTES;
  const uint8_t* wend = w + n * rowbytes;
  // planted (kMutSingleSweep): one tile of the K loop, rows longer than T chunks lose their tail
  const int tiles = Mut == kMutSingleSweep && chunks > T ? 1 : int((chunks + T - 1) / T);
  const D dec(t);

  float acc[R][MR];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < MR; ++i) acc[r][i] = 0.f;

  // Piece i = tid + v T of a tile: row i / ROWV, 16 bytes at 16 (i % ROWV) past the row's
  // tile start rounded down to 16 (every tile of a row has the row's misalignment: TILE is a
  // multiple of 16), landing at sm + (j % STAGES) STAGE + 16 i; copied without a register
  // round trip (qg_async_copy16), STAGES - 1 tiles ahead of the decode, when it starts
  // inside the tile's bytes of the row (po[v]: its start relative to the tile's, < TILE).
  // Once per block: each piece's source as a 32-bit offset from the block's first row
  // (launch_matvec keeps R rows under 2^31 bytes), so a tile costs an add per piece.
  const uint8_t* const blk0 = w + row0 * rowbytes;
  const int mis0 = int(reinterpret_cast<uintptr_t>(blk0) & 15), rb16 = int(rowbytes & 15);
  int soff[G::VEC], po[G::VEC];
#pragma unroll
  for (int v = 0; v < G::VEC; ++v) {
    const int i = tid + v * T, r = i / G::ROWV, q = i % G::ROWV;
    const int mis = Same ? mis0 : (mis0 + r * rb16) & 15;  // row r's misalignment
    soff[v] = int(r * rowbytes) - mis + 16 * q;
    po[v] = i < G::PIECES && r < rows ? 16 * q - mis : G::TILE;  // G::TILE: never copied
  }
  const qg_sref sdst = qg_sref_of(sm) + 16 * tid;
  const bool last_rows = row0 + rows == n;  // the block holds the tensor's last row
  // Every piece of the rows' last tiles, even those past the row's bytes (their slots are
  // never decoded), ends inside the tensor: all but the last blocks of a tensor.
  const bool whole_last = (row0 + rows - 1) * rowbytes + int64_t(tiles) * G::TILE + 16 <= n * rowbytes;
  auto issue = [&](int j) {
    const uint8_t* const g = blk0 + int64_t(j) * G::TILE;
    if (j < tiles - 1 || whole_last) {
      // A whole tile: its pieces end at most 15 bytes past it, inside the row's last tile
      // (which holds at least one block, F::BYTES >= 17 bytes), so inside the tensor; or
      // the last tile where whole_last says so.
      const qg_sref d = sdst + (j % G::STAGES) * G::STAGE;
#pragma unroll
      for (int v = 0; v < G::VEC; ++v)
        if (po[v] < G::TILE) qg_async_copy16_at(d + 16 * v * T, g + soff[v]);
      return;
    }
    // The row's last tile: only the pieces starting inside its len bytes, and in the
    // block with the tensor's last row, a piece passing the tensor's end cut there.
    uint8_t* dst = sm + (j % G::STAGES) * G::STAGE;
    const int len = int(rowbytes - int64_t(j) * G::TILE);
#pragma unroll
    for (int v = 0; v < G::VEC; ++v) {
      if (po[v] >= len) continue;
      const uint8_t* p = g + soff[v];
      uint8_t* d = dst + 16 * (tid + v * T);
      if (!last_rows || p + 16 <= wend) qg_async_copy16(d, p);
      else  // the tensor's last piece, cut at its end
        for (int e = 0; e < 16; ++e) d[e] = p + e < wend ? p[e] : uint8_t(0);
    }
  };
  int off0[R];  // row r's chunk tid / CPB within a stage
#pragma unroll
  for (int r = 0; r < R; ++r)
    off0[r] = r * G::ROW + (Same ? mis0 : (mis0 + r * rb16) & 15) + (tid / G::CPB) * F::BYTES;
#pragma unroll
  for (int j = 0; j < G::STAGES - 1; ++j) {
    if (j < tiles) issue(j);
    qg_async_commit();  // one group per tile, empty ones included, so the count below holds
  }
  for (int j = 0; j < tiles; ++j) {
    qg_async_wait<G::STAGES - 2>();  // this thread's copies of tile j are in
    __syncthreads();  // everyone's are, and everyone is done with tile j - 1's stage
    if (j + G::STAGES - 1 < tiles) issue(j + G::STAGES - 1);  // into tile j - 1's stage
    qg_async_commit();
    const int64_t c = int64_t(j) * T + tid;
    if (c >= chunks) continue;
    const int sbase = (j % G::STAGES) * G::STAGE;
    const int c8 = tid % G::CPB;
#pragma unroll
    for (int mi = 0; mi < MR; ++mi) {
      if (mi >= m) break;
      const uint8_t* xb;
      float dx;
      if constexpr (Act == kAct_q8_1) {
        xb = xq + (int64_t(mi) * chunks + c) * XBYTES;
        dx = f16_lo(*reinterpret_cast<const uint32_t*>(xb));
        xb += 4;
      } else {
        xb = xq + (int64_t(mi) * (k / 256) + c / 8) * XBYTES;
        dx = __uint_as_float(*reinterpret_cast<const uint32_t*>(xb));
        xb += 4 + 32 * (c % 8);
      }
      int xv[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) xv[e] = reinterpret_cast<const int*>(xb)[e];  // 4-byte aligned
      if constexpr (D::kPermX) split_lut_order(xv);
      // code sums of the activations per sub-block: the offset formats' msub term, and the
      // zero-point of codes the decoder leaves unsigned (D::kBias: isum = sum (q - bias) x
      // = sum q x - bias * sum x, the same integer)
      int qs[SPC];
#pragma unroll
      for (int q = 0; q < SPC; ++q) {
        qs[q] = 0;
        if constexpr (F::MIN || D::kBias != 0)
#pragma unroll
          for (int e = q * L / 4; e < (q + 1) * L / 4; ++e) qs[q] = qg_dp4a(0x01010101, xv[e], qs[q]);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (r >= rows) break;
        int wq[8], wn[8];
        float ds[SPC], ms[SPC];
        dec.run(sm, sbase + off0[r], c8, wq, wn, ds, ms, t);
        float inner = 0.f;
#pragma unroll
        for (int q = 0; q < SPC; ++q) {
          int isum = -D::kBias * qs[q], ineg = 0;
          if constexpr (D::kHigh16) {  // wq[4..7]: 16 times the nibbles
            int ihi = 0;
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              isum = qg_dp4a(wq[e], xv[e], isum);
              ihi = qg_dp4a_us(uint32_t(wq[e + 4]), xv[e + 4], ihi);
            }
            isum += ihi >> 4;
          } else if constexpr (D::kOdd16) {  // odd chunks: 16 times the nibbles
            int i16 = 0;
#pragma unroll
            for (int e = 0; e < 8; ++e) i16 = qg_dp4a_us(uint32_t(wq[e]), xv[e], i16);
            isum = i16 >> (4 * (c8 & 1));
          } else {
#pragma unroll
            for (int e = q * L / 4; e < (q + 1) * L / 4; ++e) {
              isum = qg_dp4a(wq[e], xv[e], isum);
              if constexpr (D::kSplit) ineg = qg_dp4a(wn[e], xv[e], ineg);
            }
          }
          isum -= ineg;
          if constexpr (F::MIN) inner += ds[q] * float(isum) - ms[q] * float(qs[q]);
          else inner += ds[q] * float(isum);
        }
        acc[r][mi] += dx * inner;
      }
    }
  }

  // The T partial sums of each (weight row, activation row) in matvec_row's tree.
  qg_async_wait<0>();
  __syncthreads();
  const int mr = Mut == kMutRowsPastM ? MR : m;  // planted: every accumulator row written
  float part[R * MR];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < MR; ++i) part[r * MR + i] = acc[r][i];
  tree_sum<R * MR>(reinterpret_cast<float*>(sm), part, tid, [&](int q, float x) {
    const int r = q / MR, i = q % MR;
    if (i < mr && r < rows) y[i * ldy + row0 + r] = x;
  });
}

// The row-per-block kernel, for weights not 16-byte aligned (matvec_row).
template <class F, int Act, int Mut>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_row_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                      int64_t k, int m, int64_t ldy, IqTables t) {
  const int64_t row = blockIdx.x;
  matvec_row<F, Act, Mut>(w + row * (k / F::QK) * F::BYTES, xq, y + row, k, m, ldy, t);
}

// Blocks of `threads` threads of `kernel` the current device runs at once (at least 1).
template <class K>
int resident_blocks(K kernel, int threads) {
  int dev = 0, sms = 0, per = 0;
  if (gpuGetDevice(&dev) != gpuSuccess || gpuDeviceGetAttribute(&sms, gpuDevAttrMultiProcessorCount, dev) != gpuSuccess ||
      gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, 0) != gpuSuccess)
    return 1;
  return sms * per > 0 ? sms * per : 1;
}

template <class F, int Act, int Mut>
void launch_matvec(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy,
                   const IqTables& t, void* stream) {
  if (n <= 0 || m <= 0) return;
  const auto s = static_cast<gpuStream_t>(stream);
  constexpr int R1 = kMvWeightRows<F, 1>, R8 = kMvWeightRows<F, kMatvecRows>;
  const int64_t rowbytes = (k / F::QK) * F::BYTES;
  // the tiles' 16-byte loads start at the row rounded down to 16; their sources are 32-bit
  // offsets from the block's first row
  if (reinterpret_cast<uintptr_t>(w) % 16 != 0 || (R1 > R8 ? R1 : R8) * rowbytes + 64 > INT32_MAX)
    matvec_row_kernel<F, Act, Mut><<<unsigned(n), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy, t);
  else if (m == 1 && Mut != kMutRowsPastM) {
    unsigned grid = unsigned((n + R1 - 1) / R1);
    if constexpr (R1 > 1)
      if (rowbytes % 16 == 0) {
        constexpr auto kern = matvec_kernel<F, Act, Mut, 1, true>;
        if constexpr (Mut == kMutGridCapped) {  // planted: the rows past one wave never computed
          const unsigned cap = unsigned(resident_blocks(kern, kMatvecThreads));
          grid = grid < cap ? grid : cap;
        }
        kern<<<grid, kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy, t);
        return;
      }
    matvec_kernel<F, Act, Mut, 1><<<grid, kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy, t);
  } else
    matvec_kernel<F, Act, Mut, kMatvecRows><<<unsigned((n + R8 - 1) / R8), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m,
                                                                                                 ldy, t);
}

}  // namespace qgate::cuk

#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family)
#define QGATE_CUDA_FORMAT(fmt, act, family) QGATE_CUDA_IF_##family(                                          \
  void matvec_##fmt(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy, \
                    const IqTables& t, void* stream) {                                                       \
    launch_matvec<Fmt_##fmt, kAct_##act, kMutNone>(w, xq, y, n, k, m, ldy, t, stream);                      \
  })
