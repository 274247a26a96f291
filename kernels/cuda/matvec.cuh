// Decode mat-vec with quantized activations: y[r][row] = sum_k W[row][k] * x'[r][k], for
// r < m <= 8 activation rows. matvec_row: one thread block per weight row (the MoE decode
// kernel, and the dense one for weights not 16-byte aligned); matvec_kernel below: the same
// chunks, arithmetic and tree, several rows per block, bytes staged in shared memory.
// Each thread takes the row's 32-element chunks c = tid, tid + T, ...: the chunk's weight
// codes packed as int8, exact integer dot products (qg_dp4a) per sub-block against the
// activation codes, then in f32
//   inner = sum_s (dsub_s * isum_s - msub_s * qsum_s);  acc[r] += d_x * inner
// and the T partial sums are added in a fixed shared-memory tree (deterministic, and
// valid for any thread count and any hardware SIMD width).
// Longest rounding chain of a term (registry_cuda.cpp declares it as depth(k)):
//   ceil(k / 32 / T) accumulations + log2(T) tree levels + (2 SPC + 2 <= 6) inside a chunk.
#pragma once
#include <type_traits>

#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {

inline constexpr int kAct_q8_1 = 0, kAct_q8_K = 1;
inline constexpr int kMutNone = 0, kMutCrossedLanes = 1, kMutRowsPastM = 2;

// The fixed shared-memory tree of the one-row-per-block mat-vecs: each thread's
// kMatvecRows partial sums added pairwise over kMatvecThreads threads in log2 T levels
// (deterministic, valid for any SIMD width); red[r][0] holds row r's sum on return.
__device__ __forceinline__ void tree_sum_rows(float (&red)[kMatvecRows][kMatvecThreads], const float (&acc)[kMatvecRows],
                                              int tid) {
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) red[r][tid] = acc[r];
  __syncthreads();
  for (int h = kMatvecThreads / 2; h > 0; h >>= 1) {
    if (tid < h)
#pragma unroll
      for (int r = 0; r < kMatvecRows; ++r) red[r][tid] += red[r][tid + h];
    __syncthreads();
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
  constexpr int XBYTES = Act == kAct_q8_1 ? 36 : 292;
  const int tid = threadIdx.x;
  const int64_t chunks = k / 32;

  float acc[kMatvecRows];
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) acc[r] = 0.f;

  for (int64_t c = tid; c < chunks; c += blockDim.x) {
    const uint8_t* blk = wrow + (c / CPB) * F::BYTES;
    const int base = int(c % CPB) * 32;
    int wq[8];
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
// the six formats of issue 5 decode a chunk with packed word operations (ChunkDecoder)
// instead of element by element; each chunk's activation codes are read once for the
// block's rows.
template <class F>
inline constexpr bool kMvFast = std::is_same_v<F, Fmt_q4_0> || std::is_same_v<F, Fmt_q8_0> ||
                                std::is_same_v<F, Fmt_mxfp4> || std::is_same_v<F, Fmt_iq4_xs> ||
                                std::is_same_v<F, Fmt_q4_K> || std::is_same_v<F, Fmt_q6_K>;
// Weight rows per block: 4 sharing each chunk's activation loads for the packed decoders at
// M = 1; one otherwise (the element-by-element decode of 4 rows, or of 8 activation rows,
// would not fit the registers).
template <class F, int MR>
inline constexpr int kMvWeightRows = kMvFast<F> && MR == 1 ? 4 : 1;

template <class F, int MR>
struct MvGeom {
  static constexpr int R = kMvWeightRows<F, MR>;
  static constexpr int CPB = F::QK / 32;
  static constexpr int TILE = kMatvecThreads / CPB * F::BYTES;  // bytes of one row's tile
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
// 4 bytes at a 4-aligned byte offset o.
QG_DEV uint32_t lds_a32(const uint8_t* s, int o) { return reinterpret_cast<const uint32_t*>(s)[o >> 2]; }
QG_DEV float f16_lo(uint32_t v) { return qg_f16_bits_to_float((unsigned short)(v & 0xFFFFu)); }
// int8 lanes of v (each 0..15) replaced by table[v]: table in four words (16 int8).
QG_DEV uint32_t lut16_half(uint32_t sel, const uint32_t (&tb)[4]) {  // 4 nibbles of sel -> 4 bytes
  const uint32_t lo = qg_byte_perm(tb[0], tb[1], sel & 0x7777u), hi = qg_byte_perm(tb[2], tb[3], sel & 0x7777u);
  return qg_byte_perm(lo, hi, 0x3210u | ((sel & 0x8888u) >> 1));
}
// Nibble codes 0..15 (int8 lanes) minus 8, and 6-bit codes minus 32: exact, no carries.
QG_DEV int sub8(uint32_t v) { return int((v + 0x78787878u) ^ 0x80808080u); }
QG_DEV int sub32(uint32_t v) { return int((v + 0x60606060u) ^ 0x80808080u); }

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
  // caller permutes the chunk's activation ints the same way once (permute_x), shared by
  // the block's weight rows: the same products, so the same integer sums.
  static constexpr bool kPermX = kFast && (std::is_same_v<F, Fmt_mxfp4> || std::is_same_v<F, Fmt_iq4_xs>);
  QG_DEV static void permute_x(int (&xv)[8]) {
    int p[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      p[2 * i] = int(qg_byte_perm(uint32_t(xv[i]), uint32_t(xv[i + 4]), 0x5140u));
      p[2 * i + 1] = int(qg_byte_perm(uint32_t(xv[i]), uint32_t(xv[i + 4]), 0x7362u));
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) xv[e] = p[e];
  }
  uint32_t tb[4];
  QG_DEV explicit ChunkDecoder(const IqTables& t) {
    if constexpr (std::is_same_v<F, Fmt_mxfp4>) {  // twice the E2M1 value, sign in bit 3
      tb[0] = 0x03020100u, tb[1] = 0x0C080604u, tb[2] = 0xFDFEFF00u, tb[3] = 0xF4F8FAFCu;
    } else if constexpr (std::is_same_v<F, Fmt_iq4_xs>) {
      const uint32_t* v = reinterpret_cast<const uint32_t*>(t.iq4nl);
#pragma unroll
      for (int i = 0; i < 4; ++i) tb[i] = v[i];
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) tb[i] = 0;
    }
  }
  QG_DEV void run(const uint8_t* s, int off, int c8, int (&wq)[8], float (&ds)[SPC], float (&ms)[SPC],
                  const IqTables& t) const {
    if constexpr (kFast && std::is_same_v<F, Fmt_q4_0>) {  // {f16 d; u8 qs[16]}
      ds[0] = f16_lo(lds_u32(s, off));
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const uint32_t q = lds_u32(s, off + 2 + 4 * e);
        const int lo = sub8(q & 0x0F0F0F0Fu), hi = sub8((q >> 4) & 0x0F0F0F0Fu);
        wq[e] = Mut == kMutCrossedLanes ? hi : lo;  // planted: elements 0..15 read 16..31
        wq[e + 4] = Mut == kMutCrossedLanes ? lo : hi;
      }
    } else if constexpr (kFast && std::is_same_v<F, Fmt_q8_0>) {  // {f16 d; i8 qs[32]}
      ds[0] = f16_lo(lds_u32(s, off));
#pragma unroll
      for (int e = 0; e < 8; ++e) wq[e] = int(lds_u32(s, off + 2 + 4 * e));
    } else if constexpr (kFast && std::is_same_v<F, Fmt_mxfp4>) {  // {e8m0 e; u8 qs[16]}
      const uint32_t e8 = lds_u32(s, off) & 0xFFu;
      ds[0] = __uint_as_float(e8 >= 2 ? (e8 - 1) << 23 : 0x00400000u >> (1 - e8));  // 2^(e-128), exact
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // nibble order (kPermX)
        const uint32_t q = lds_u32(s, off + 1 + 4 * e);
        wq[2 * e] = int(lut16_half(q, tb));
        wq[2 * e + 1] = int(lut16_half(q >> 16, tb));
      }
    } else if constexpr (kFast && std::is_same_v<F, Fmt_iq4_xs>) {  // {f16 d; u16 sh; u8 sl[4]; u8 qs[128]}, 8-aligned
      const uint32_t h = lds_a32(s, off), sl = lds_a32(s, off + 4);
      const uint32_t ls = ((sl >> (4 * c8)) & 15u) | (((h >> (16 + 2 * c8)) & 3u) << 4);
      ds[0] = f16_lo(h) * float(int(ls) - 32);
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // nibble order (kPermX)
        const uint32_t q = lds_a32(s, off + 8 + 16 * c8 + 4 * e);
        wq[2 * e] = int(lut16_half(q, tb));
        wq[2 * e + 1] = int(lut16_half(q >> 16, tb));
      }
    } else if constexpr (kFast && std::is_same_v<F, Fmt_q4_K>) {  // {f16 d, dmin; u8 sc[12]; u8 qs[128]}, 16-aligned
      const uint32_t h = lds_a32(s, off);
      const uint8_t* blk = s + off;
      ds[0] = f16_lo(h) * float(F::scale6(blk, c8, 0));
      ms[0] = f16_lo(h >> 16) * float(F::scale6(blk, c8, 1));
      const int sh = 4 * (c8 & 1);
#pragma unroll
      for (int e = 0; e < 8; ++e) wq[e] = int((lds_a32(s, off + 16 + 32 * (c8 >> 1) + 4 * e) >> sh) & 0x0F0F0F0Fu);
    } else if constexpr (kFast && std::is_same_v<F, Fmt_q6_K>) {  // {u8 ql[128]; u8 qh[64]; i8 sc[16]; f16 d}
      const int h = c8 >> 2, r = c8 & 3;
      const float d = f16_lo(lds_u32(s, off + 208));
      const uint32_t sc = lds_u32(s, off + 192 + 2 * c8);
      ds[0] = d * float(int(int8_t(uint8_t(sc & 0xFFu))));
      ds[1] = d * float(int(int8_t(uint8_t((sc >> 8) & 0xFFu))));
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const uint32_t lo = (lds_u32(s, off + 64 * h + 32 * (r & 1) + 4 * e) >> (4 * (r >> 1))) & 0x0F0F0F0Fu;
        const uint32_t hi = (lds_u32(s, off + 128 + 32 * h + 4 * e) >> (2 * r)) & 0x03030303u;
        wq[e] = sub32(lo | (hi << 4));
      }
    } else {  // any format: element by element through F::code (as matvec_row)
      const uint8_t* blk = s + off;
      const int base = c8 * 32;
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
// alone in registers; kMatvecRows otherwise).
template <class F, int Act, int Mut, int MR>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                  int64_t k, int m, int64_t ldy, IqTables t) {
  using G = MvGeom<F, MR>;
  using D = ChunkDecoder<F, Mut>;
  constexpr int T = kMatvecThreads, R = G::R, SPC = D::SPC, L = D::L;
  constexpr int XBYTES = Act == kAct_q8_1 ? 36 : 292;
  __shared__ __align__(16) uint8_t sm[G::SMEM];
  const int tid = threadIdx.x;
  const int64_t row0 = int64_t(blockIdx.x) * R;
  const int rows = int(n - row0 < R ? n - row0 : R);
  const int64_t chunks = k / 32, rowbytes = (k / F::QK) * F::BYTES;
  const uint8_t* wend = w + n * rowbytes;
  const int tiles = int((chunks + T - 1) / T);
  const D dec(t);

  float acc[R][MR];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < MR; ++i) acc[r][i] = 0.f;

  // Piece i of a tile: row i / ROWV, 16 bytes at 16 (i % ROWV) past the row's tile start
  // rounded down to 16; tile j's piece i lands at sm + (j % STAGES) STAGE + 16 i, copied
  // without a register round trip (qg_async_copy16), STAGES - 1 tiles ahead of the decode.
  auto issue = [&](int j) {
    uint8_t* dst = sm + (j % G::STAGES) * G::STAGE;
#pragma unroll
    for (int v = 0; v < G::VEC; ++v) {
      const int i = tid + v * T, r = i / G::ROWV, q = i % G::ROWV;
      if (i < G::PIECES && r < rows) {
        const int64_t start = (row0 + r) * rowbytes + int64_t(j) * G::TILE;
        const int64_t len = rowbytes - int64_t(j) * G::TILE < G::TILE ? rowbytes - int64_t(j) * G::TILE : G::TILE;
        const uint8_t* g0 = w + start;
        const uint8_t* p = g0 - (reinterpret_cast<uintptr_t>(g0) & 15) + 16 * q;
        if (p < g0 + len) {
          if (p + 16 <= wend) {
            qg_async_copy16(dst + 16 * i, p);
          } else {  // the tensor's last piece, cut at its end
            for (int e = 0; e < 16; ++e) dst[16 * i + e] = p + e < wend ? p[e] : uint8_t(0);
          }
        }
      }
    }
  };
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
    int off[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
      off[r] = (j % G::STAGES) * G::STAGE + r * G::ROW +
               int((reinterpret_cast<uintptr_t>(w) + uint64_t((row0 + r) * rowbytes + int64_t(j) * G::TILE)) & 15) +
               (tid / G::CPB) * F::BYTES;
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
      if constexpr (D::kPermX) D::permute_x(xv);
      int qs[SPC];
#pragma unroll
      for (int q = 0; q < SPC; ++q) {
        qs[q] = 0;
        if constexpr (F::MIN)
#pragma unroll
          for (int e = q * L / 4; e < (q + 1) * L / 4; ++e) qs[q] = qg_dp4a(0x01010101, xv[e], qs[q]);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (r >= rows) break;
        int wq[8];
        float ds[SPC], ms[SPC];
        dec.run(sm, off[r], c8, wq, ds, ms, t);
        float inner = 0.f;
#pragma unroll
        for (int q = 0; q < SPC; ++q) {
          int isum = 0;
#pragma unroll
          for (int e = q * L / 4; e < (q + 1) * L / 4; ++e) isum = qg_dp4a(wq[e], xv[e], isum);
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
  float* red = reinterpret_cast<float*>(sm);  // [R][MR][T]
  const int mr = Mut == kMutRowsPastM ? MR : m;  // planted: every accumulator row written
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < MR; ++i)
      if (i < mr) red[(r * MR + i) * T + tid] = acc[r][i];
  __syncthreads();
  for (int h = T / 2; h > 0; h >>= 1) {
    if (tid < h)
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int i = 0; i < MR; ++i)
          if (i < mr) red[(r * MR + i) * T + tid] += red[(r * MR + i) * T + tid + h];
    __syncthreads();
  }
  if (tid < R * mr) {
    const int r = tid / mr, i = tid % mr;
    if (r < rows) y[i * ldy + row0 + r] = red[(r * MR + i) * T];
  }
}

// The row-per-block kernel, for weights not 16-byte aligned (matvec_row).
template <class F, int Act, int Mut>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_row_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                      int64_t k, int m, int64_t ldy, IqTables t) {
  const int64_t row = blockIdx.x;
  matvec_row<F, Act, Mut>(w + row * (k / F::QK) * F::BYTES, xq, y + row, k, m, ldy, t);
}

template <class F, int Act, int Mut>
void launch_matvec(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy,
                   const IqTables& t, void* stream) {
  if (n <= 0 || m <= 0) return;
  const auto s = static_cast<gpuStream_t>(stream);
  constexpr int R1 = kMvWeightRows<F, 1>, R8 = kMvWeightRows<F, kMatvecRows>;
  if (reinterpret_cast<uintptr_t>(w) % 16 != 0)  // the tiles' 16-byte loads start at the row rounded down to 16
    matvec_row_kernel<F, Act, Mut><<<unsigned(n), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy, t);
  else if (m == 1 && Mut != kMutRowsPastM)
    matvec_kernel<F, Act, Mut, 1><<<unsigned((n + R1 - 1) / R1), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy, t);
  else
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
