// Prefill GEMM on int8 tile products: y[r][row] = sum_k W[row][k] * x'[r][k] for any M
// (meant for M >= 16; the decode mat-vec takes M <= 8). One thread block computes a
// kGemmBM x kGemmBN output tile (128 activation rows x 64 weight rows) with kGemmThreads
// threads in 8 tile groups of 32 lanes (the fragment layout of qg_mma_s8_*; vendor.cuh),
// each group a 32 x 32 sub-tile. In the tile products the weights are the A operand (16
// weight rows a product) and the activations the B operand (8 activation rows): a
// weight fragment is then one 16-byte read of the decoded tile, laid out for it. K runs
// in stages of kGemmStage 32-element chunks (windows aligned to multiples of kGemmStage),
// each in three steps:
//   copy   the stage's bytes, global -> shared, without a register round trip
//          (qg_async_copy16: cp.async on sm_80+), GemmGeom::STAGES - 1 steps ahead of
//          their use, so the loads' latency is hidden behind the work of the steps
//          before: per activation row the stage's 160 contiguous bytes of the repacked
//          activations (gemm_pack_acts: codes in the tile's order, then each chunk's f32
//          scale and exact code sum); per weight row the raw blocks covering the stage
//          from the row's position rounded down to 16 (so a block sits in shared memory
//          at its global alignment);
//   decode the weight chunks, from shared memory, to int8 codes with their sub-block
//          scale and offset (exact f32) in the fragment-friendly layout below, one step
//          before the stage's products, into the other of two decoded tiles: one barrier
//          a step, and the threads without a decode task go on to the products;
//   use    per chunk and sub-block an exact int32 tile product (m16n8k32, or two m16n8k16
//          for 16-element sub-blocks), then per output in f32
//            inner = sum_s (dsub_s * isum_s - msub_s * qsum_s);  acc += dx * inner
// exactly the mat-vec's arithmetic (matvec.cuh), so the same declaration holds:
// longest rounding chain = chunks (one accumulation each) + at most 6 inside a chunk.
// Split-K (grid z, launchers.hpp gemm_plan) sums contiguous chunk ranges into partials
// that one pass adds in split order: a term of split 0 then goes through its split's
// accumulations plus (splits - 1) additions, still at most ceil(k/32) in all.
#pragma once
#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/gemm_decode.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {

inline constexpr int kGemmMutNone = 0, kGemmMutMissingSync = 1, kGemmMutSplitUnreduced = 2;
inline constexpr int kGemmAct_q8_1 = 0, kGemmAct_q8_K = 1;
inline constexpr int kTileGroup = 32;  // lanes of one qg_mma_s8_* fragment (not the hardware SIMD width)

// Weight chunks of a GGUF block format: chunk c8 (elements 32 c8 .. 32 c8 + 31) of the block
// at blk, which sits in shared memory at its global alignment (FastChunk's word loads).
template <class F>
struct BlockWeights {
  static constexpr int L = F::SUB < 32 ? F::SUB : 32;  // elements of one sub-block in a chunk
  static constexpr int SPC = 32 / L;                   // sub-blocks per chunk (1 or 2 here)
  static constexpr bool MIN = F::MIN;
  static constexpr bool kRaw = true;                   // staged raw in shared memory
  static constexpr int CPB = F::QK / 32, BYTES = F::BYTES;
  // The codes in the nibble order (gemm_decode.cuh; the activations repacked to match).
  static constexpr bool kPermX = FastChunk<F>::kPermX;
  using Lut = typename FastChunk<F>::Lut;  // built once per kernel
  QG_DEV static void decode(const uint8_t* blk, int c8, int (&q)[8], float (&ds)[SPC], float (&ms)[SPC],
                            const IqTables& t, const Lut& lut) {
    if constexpr (FastChunk<F>::ok) {  // the same codes and scales from word loads (gemm_decode.cuh)
      FastChunk<F>::decode(blk, c8, q, ds, ms, lut);
      return;
    }
    const int base = c8 * 32;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      uint32_t p = 0;
#pragma unroll
      for (int l = 0; l < 4; ++l) p |= uint32_t(uint8_t(int8_t(F::code(blk, base + 4 * e + l, t)))) << (8 * l);
      q[e] = int(p);
    }
#pragma unroll
    for (int s = 0; s < SPC; ++s) {
      const int j = (base + s * L) / F::SUB;
      ds[s] = float(F::dsub(blk, j));  // exact (formats.cuh)
      ms[s] = F::MIN ? float(F::msub(blk, j)) : 0.f;
    }
  }
};

// GPTQ / AutoRound int4 (oracles/formats/gptq.hpp, v1 packing; contiguous groups that are
// multiples of 32): code = q - (stored zero + 1), an exact int8 in -16..14; dsub = scale.
// Its qweight is [k/8][n] words, so a stage's words of consecutive columns are read straight
// from global memory by consecutive threads (kRaw false: no raw stage).
struct GptqWeights {
  static constexpr int SPC = 1;
  static constexpr bool MIN = false;
  static constexpr bool kRaw = false;
  static constexpr int CPB = 1, BYTES = 0;
  static constexpr bool kPermX = false;
  using Lut = NoLut;
  QG_DEV static void chunk(const GemmArgs& a, int64_t col, int64_t c, int (&q)[8], float (&ds)[1], float (&ms)[1]) {
    const int64_t g = (32 * c) / a.group;
    const int zero = int((a.qzeros[g * (a.n / 8) + col / 8] >> (4 * (col % 8))) & 15u) + 1;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t u = a.qweight[(4 * c + i) * a.n + col];  // inputs 8(4c+i) .. +7
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint32_t p = 0;
#pragma unroll
        for (int l = 0; l < 4; ++l) p |= uint32_t(uint8_t(int8_t(int((u >> (16 * h + 4 * l)) & 15u) - zero))) << (8 * l);
        q[2 * i + h] = int(p);
      }
    }
    ds[0] = float(f16_value(a.scales[g * a.n + col]));
    ms[0] = 0.f;
  }
};

// The int32 tile products start from kGemmSeed instead of 0: D = 0x4B400000 + isum is then
// the f32 bit pattern of 1.5 * 2^23 + isum (|isum| <= 32 * 128 * 128 = 2^19 < 2^22, so no
// carry leaves the mantissa), and subtracting 1.5 * 2^23 in f32 gives isum exactly -- the
// same value as (float)isum, without the quarter-rate int -> float conversion. Exact in the
// portable form too (it adds C in int32 like the instruction).
inline constexpr int kGemmSeed = 0x4B400000;
inline constexpr float kGemmSeedF = 12582912.0f;  // 1.5 * 2^23
QG_DEV float gemm_isum(int d) { return __int_as_float(d) - kGemmSeedF; }
// dsub * isum rounded once, from the seeded product d and nb = -(dsub * 1.5 * 2^23):
// fma(dsub, 1.5 * 2^23 + isum, nb) = round(dsub * isum) when nb is exact, i.e. when dsub has
// at most 22 significant bits -- true of every GEMM format (an fp16 value times an integer
// of at most 8 bits, or a power of two), and (|dsub| < 2^24) no overflow. The same f32 as
// dsub * (float)isum, one instruction instead of two. (A non-finite dsub, which the gate's
// generators never draw since the oracle has no finite value then, gives NaN here.)
QG_DEV float gemm_scaled_isum(float dsub, int d, float nb) { return qg_fmaf(dsub, __int_as_float(d), nb); }

// Activation code layout (the B operand): one row of a stage is kGemmStage chunks of 8
// ints; inside a chunk int e (k = 4e..4e+3) is stored at position 2e (e < 4) or
// 2(e - 4) + 1 (e >= 4), so the two ints a lane needs of a row ({e = t, e = t + 4},
// t = lane % 4: b0/b1 of the B fragment; vendor.cuh) are one 8-byte read. Rows are
// 8 * kGemmStage + 8 ints apart: the 4 rows of a half group's 8-byte reads start 8 banks
// apart, so fragment reads are free of bank conflicts.
QG_DEV void gemm_store_codes(int* dst, const int (&q)[8]) {
  reinterpret_cast<int4*>(dst)[0] = make_int4(q[0], q[4], q[1], q[5]);
  reinterpret_cast<int4*>(dst)[1] = make_int4(q[2], q[6], q[3], q[7]);
}

// The decoded weight tile (the A operand): per 16-row tile rt and chunk j, 8 slots of
// 4 x 16 bytes, one per g = row % 8: slot (g, t') holds the A fragment of lane (g, t)
// with t' = t ^ ((g >> 1) & 3),
//   { W[g][4t..4t+3], W[g+8][4t..], W[g][16+4t..], W[g+8][16+4t..] }  (rows of tile rt),
// so a lane's fragment is one 16-byte read. The xor spreads both the reads (each quarter of
// the group: g = 2i, 2i+1, all t, over the 32 banks) and the decode's stores (8 lanes of
// one chunk, g = 0..7, same t) over distinct banks. Index of the int4, not of the int.
QG_DEV int gemm_wslot(int rt, int j, int g, int t) { return ((rt * kGemmStage + j) * 8 + g) * 4 + (t ^ ((g >> 1) & 3)); }
// Rows g and g + 8 of a tile, chunk j, decoded (q0, q1) -> their four slots.
QG_DEV void gemm_store_weight_pair(int4* wq, int rt, int j, int g, const int (&q0)[8], const int (&q1)[8]) {
#pragma unroll
  for (int t = 0; t < 4; ++t) wq[gemm_wslot(rt, j, g, t)] = make_int4(q0[t], q1[t], q0[t + 4], q1[t + 4]);
}

// The activations repacked once per launch (one thread per row and chunk; chunks past
// k/32 up to a whole group are zeros): per row, per group of kGemmStage chunks, 160 bytes
// = the group's codes (PermX: in the nibble order the weights' decoder gives, W::kPermX)
// as gemm_store_codes lays out a tile row, then the kGemmStage chunks' f32 d (the record's
// scale, exact in f32), then their f32 code sums (the sum of the chunk's 32 codes, exact).
// A group is then one contiguous copy into a tile row.
template <int Act, bool PermX>
__global__ void gemm_pack_acts(const uint8_t* __restrict__ xq, uint8_t* __restrict__ xp, int64_t m, int64_t k) {
  constexpr int S = kGemmStage;
  const int64_t chunks = k / 32, groups = (chunks + S - 1) / S;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * groups * S) return;
  const int64_t r = i / (groups * S), c = i % (groups * S);
  int q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  float d = 0.f, sum = 0.f;
  if (c < chunks) {
    const uint8_t* xb;
    if constexpr (Act == kGemmAct_q8_1) {
      xb = xq + (r * chunks + c) * block::q8_1::bytes;
      d = qg_f16_bits_to_float(*reinterpret_cast<const unsigned short*>(xb));
      xb += 4;
    } else {
      xb = xq + (r * (k / block::q8_K::elems) + c / 8) * block::q8_K::bytes;
      d = __uint_as_float(*reinterpret_cast<const uint32_t*>(xb));
      xb += 4 + 32 * (c % 8);
    }
    int s = 0;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      q[e] = reinterpret_cast<const int*>(xb)[e];  // 4-byte aligned: 36 and 292 are multiples of 4
      s = qg_dp4a(0x01010101, q[e], s);
    }
    sum = float(s);  // exact: |s| <= 32 * 128
    if constexpr (PermX) split_lut_order(q);  // the weights' nibble order (formats.cuh)
  }
  uint8_t* dst = xp + (r * groups + c / S) * (S * 40);
  gemm_store_codes(reinterpret_cast<int*>(dst + 32 * (c % S)), q);
  float* f = reinterpret_cast<float*>(dst + 32 * S);
  f[c % S] = d;
  f[S + c % S] = sum;
}

// Shared memory of one GEMM instance (bytes). STAGES slots of a ring, slot x % STAGES
// holding copy group x (see the kernel):
//   activations [kGemmBM][XS] ints: a group of the repacked activations per row (XS % 32
//     == 8: the 8-byte fragment reads of 8 rows x 4 lanes are free of bank conflicts);
//   weights [kGemmBN][WROW] bytes: the NB blocks covering the stage, from the row's
//     position rounded down to 16.
// Then two decoded weight tiles (codes as gemm_wslot lays them out, scales, offsets: the
// one being used and the one being decoded) and, for the expert-grouped MoE, each thread's
// activation source offsets. Three slots where two blocks still fit an SM (<= 112 KiB
// each), else two; one on the AMD targets (static LDS <= 64 KiB: a step is barrier,
// copy, barrier, decode and products).
template <class W, bool Moe>
struct GemmGeom {
  static constexpr int S = kGemmStage, SPC = W::SPC;
  static_assert(S % W::CPB == 0 || W::CPB % S == 0, "a stage is whole blocks or part of one");
  static constexpr int XS = 8 * S + 8;  // ints per tile row: codes, then S d, then S code sums
  static_assert(XS * 4 == S * 40, "a tile row is one group of the repacked activations");
  static constexpr int XV = XS / 4;     // its 16-byte pieces
  static constexpr int XBYTES = kGemmBM * XS * 4;
  static constexpr int NB = W::kRaw ? (S >= W::CPB ? S / W::CPB : 1) : 0;  // blocks of a row per stage
  static constexpr int WV = W::kRaw ? (NB * W::BYTES + 30) / 16 : 0;      // 16-byte pieces, start misaligned <= 15
  static constexpr int WROW = 16 * WV;
  static constexpr int RAW = XBYTES + kGemmBN * WROW;  // one slot
  // decoded tile: codes (32 bytes a row and chunk); per tile, chunk and g the float4
  // {dsub_0, dsub_0', -dsub_0 * 1.5 * 2^23, -dsub_0' * 1.5 * 2^23} of rows g and g + 8 ('),
  // the float2 {dsub_1, dsub_1'} (two sub-blocks per chunk), the float2 {msub, msub'}
  // (formats with offsets); all in gemm_wslot's order without its t
  static constexpr int CODES = kGemmBN * S * 32;
  static constexpr int TILE = CODES + S * kGemmBN * 8 + (SPC == 2 ? S * kGemmBN * 4 : 0) +
                              (W::MIN ? S * kGemmBN * 4 : 0);
  static constexpr int WCOPY = (kGemmBN * WV + kGemmThreads - 1) / kGemmThreads;  // weight pieces per thread (at most)
  static constexpr int XCOPY = kGemmBM * XV / kGemmThreads;  // activation pieces per thread and stage
  static_assert(kGemmBM * XV % kGemmThreads == 0, "whole activation pieces per thread");
  static constexpr int XOFF = Moe ? XCOPY * kGemmThreads * 4 : 0;
  static constexpr int STAGES = !QG_DYN_SMEM ? 1 : 3 * RAW + 2 * TILE + XOFF <= 112 * 1024 ? 3 : 2;
  static constexpr int SMEM = STAGES * RAW + 2 * TILE + XOFF;
  static_assert(RAW % 16 == 0 && TILE % 16 == 0, "layout");
};

// Two blocks per SM on sm_90 (at most 128 registers: without the bound ptxas settles at 80
// and spills).
template <class W, int Act, int Mut, bool Moe = false>
__global__ void __launch_bounds__(kGemmThreads, 2) gemm_kernel(const GemmArgs p) {
  using G = GemmGeom<W, Moe>;
  constexpr int SPC = W::SPC;
  constexpr bool MIN = W::MIN;
  constexpr int S = kGemmStage;
  constexpr int XS = G::XS;
  constexpr int GROUPS_M = kGemmBM / 32;
  static_assert(kGemmThreads == (kGemmBM / 32) * (kGemmBN / 32) * kTileGroup, "one 32 x 32 sub-tile per tile group");
  static_assert(XS % 32 == 8 && XS % 4 == 0, "rows 8 banks apart, 16-byte aligned");
  static_assert(!MIN || SPC == 1, "one code sum per chunk");
#if QG_DYN_SMEM
  extern __shared__ __align__(16) uint8_t gsm[];
#else
  __shared__ __align__(16) uint8_t gsm[G::SMEM];
#endif
  uint8_t* const tiles = gsm + G::STAGES * G::RAW;  // decoded tile b at tiles + b * TILE
  // decoded tile b: codes (gemm_wslot), then float4 wsc, float2 wd1 (SPC 2), float2 wm (MIN),
  // each [tile][S][8]
  struct Decoded {
    int4* wq;
    float *wsc, *wd1, *wm;
  };
  auto decoded = [&](int b) {
    Decoded d;
    d.wq = reinterpret_cast<int4*>(tiles + b * G::TILE);
    d.wsc = reinterpret_cast<float*>(tiles + b * G::TILE + G::CODES);
    d.wd1 = d.wsc + S * kGemmBN * 2;
    d.wm = d.wd1 + (SPC == 2 ? S * kGemmBN : 0);
    return d;
  };
  uint32_t* xsrc = reinterpret_cast<uint32_t*>(tiles + 2 * G::TILE);  // [XCOPY][kGemmThreads] (Moe)
  using Tile = int[XS];

  const int tid = threadIdx.x;
  const int64_t m0 = int64_t(blockIdx.y) * kGemmBM, n0 = int64_t(blockIdx.x) * kGemmBN;
  // Expert-grouped MoE (Moe, moe.cuh): grid z is the expert, whose weights start
  // expert_bytes further on; its rows are the slots listed for it, activation row
  // = slot / top_k, output row = slot. Otherwise grid z is the split. A template parameter,
  // so the dense GEMM carries none of the list loads.
  constexpr bool moe = Moe;
  GemmArgs a = p;
  int64_t rows = p.m;
  const int32_t* list = nullptr;
  if (moe) {
    rows = p.moe_count[blockIdx.z];
    list = p.moe_list + int64_t(blockIdx.z) * p.moe_cap;
    a.w = p.w + int64_t(blockIdx.z) * p.expert_bytes;
    if (m0 >= rows) return;  // the whole block: no barrier is skipped by part of it
  }
  const int64_t chunks = a.k / 32;
  const int64_t cbeg = moe ? 0 : int64_t(blockIdx.z) * a.split_chunks;
  const int64_t cend = moe ? chunks : (cbeg + a.split_chunks < chunks ? cbeg + a.split_chunks : chunks);
  const int grp = tid / kTileGroup, lane = tid % kTileGroup;
  const int g = lane >> 2, t = lane & 3;
  const int gm = (grp % GROUPS_M) * 32, gn = (grp / GROUPS_M) * 32;  // this group's sub-tile
  const int64_t wrow = W::kRaw ? (a.k / 32 / W::CPB) * W::BYTES : 0;  // bytes of a weight row
  const uint8_t* wend = a.w + a.n * wrow;
  const uint8_t* const wblk = a.w + n0 * wrow;  // the block's first weight row
  const int nrows = int(a.n - n0 < kGemmBN ? a.n - n0 : kGemmBN);
  const bool wlast = n0 + kGemmBN >= a.n;  // the block holds the tensor's last row

  // Rows past M hold zeros in every slot (never copied). The other activation rows and the
  // decoded tiles' scales start as NaN: shared memory keeps what the SM's previous block
  // left (often the same weights), so a read before this block's copy landed or its decode
  // wrote (a missing wait or barrier) shows as NaN outputs instead of plausible stale values.
  const int64_t groups = (chunks + S - 1) / S;
  constexpr int kScales = (G::TILE - G::CODES) / 4;  // floats after a decoded tile's codes
  for (int i = tid; i < 2 * kScales; i += kGemmThreads) decoded(i / kScales).wsc[i % kScales] = __int_as_float(0x7FC00000);
  for (int i = tid; i < G::STAGES * kGemmBM * XS; i += kGemmThreads)
    reinterpret_cast<int*>(gsm + (i / (kGemmBM * XS)) * G::RAW)[i % (kGemmBM * XS)] =
        m0 + (i / XS) % kGemmBM >= rows ? 0 : 0x7FC00000;
  // This thread's activation pieces: piece v = tid + T u (tile row i = v / XV, 16 bytes at
  // 16 (v % XV)) is 16-byte unit row(i) * groups * XV + v % XV of the repacked activations
  // (~0u: a row past M; 32 bits: launch.cpp refuses shapes past gemm_xpack_fits), taken
  // once per block. The MoE's rows come from the expert's list: their offsets are kept in
  // shared memory; the dense GEMM's in registers (xo), and each copy's destination is an
  // offset from this thread's shared-window address (xsref): a copy is then a few
  // instructions, not the ~20 of recomputing its row and address (H200, M = 512: q8_0 190 ->
  // 198, q4_K 167 -> 176.5, iq4_xs 192 -> 201 TOPS).
  auto xsrc_of = [&](int u) -> uint32_t {
    const int v = tid + kGemmThreads * u, i = v / G::XV;
    if (m0 + i >= rows) return ~0u;
    return uint32_t((moe ? list[m0 + i] / a.top_k : m0 + i) * groups * G::XV + v % G::XV);
  };
  uint32_t xo[moe ? 1 : G::XCOPY];  // the dense GEMM's offsets, in registers
  if constexpr (moe) {
#pragma unroll
    for (int u = 0; u < G::XCOPY; ++u) xsrc[u * kGemmThreads + tid] = xsrc_of(u);
  } else {
#pragma unroll
    for (int u = 0; u < G::XCOPY; ++u) xo[u] = xsrc_of(u);
  }
  const qg_sref xsref = qg_sref_of(gsm) + 16 * tid;
  __syncthreads();

  // Stage s: the window of chunks [w0, w0 + S), w0 = (cbeg rounded down to S) + S s, whose
  // chunks in [cbeg, cend) are used. Its weights are decoded one step before its products
  // (into the other decoded tile), so copy group x = {the weight blocks of stage x inside
  // the row, the activation group of stage x - 1 (zero past k/32)} is consumed in one step
  // (step x - 1) and its slot is free at the barrier that starts step x. Step st:
  //   wait for group st + 1, barrier, copy group st + STAGES into the freed slot,
  //   decode stage st + 1 (tile (st + 1) % 2), products of stage st (tile st % 2).
  // One barrier a step; the threads that have no decode task go on to the products.
  const int64_t wbase = cbeg / S * S;
  const int nst = int((cend - wbase + S - 1) / S);
  // stage s's window start w0 and its chunks [jlo, jhi) inside the split
  auto window = [&](int s, int& jlo, int& jhi) {
    const int64_t w0 = wbase + int64_t(s) * S;
    jlo = int(cbeg > w0 ? cbeg - w0 : 0);
    jhi = int(cend - w0 < S ? cend - w0 : S);
    return w0;
  };
  // Without asynchronous copies (the AMD targets: QG_DYN_SMEM 0, qg_async_copy16 a plain
  // copy) a group's loads are all issued before the first store, so they overlap.
  constexpr bool kAsync = QG_DYN_SMEM != 0;
  constexpr int HOLD = kAsync ? 1 : G::XCOPY + G::WCOPY;
  auto issue = [&](int x) {
    uint8_t* xr = gsm + (x % G::STAGES) * G::RAW;
    uint4 hold[HOLD];
    uint8_t* hdst[HOLD];
#pragma unroll
    for (int h = 0; h < HOLD; ++h) hdst[h] = nullptr;
    if (x >= 1) {  // activations of stage x - 1
      const uint8_t* xg = a.xpack + (wbase / S + x - 1) * (S * 40);
#pragma unroll
      for (int u = 0; u < G::XCOPY; ++u) {
        const uint32_t o = moe ? xsrc[u * kGemmThreads + tid] : xo[moe ? 0 : u];
        if (o == ~0u) continue;
        const uint8_t* src = xg + uint64_t(o) * 16;
        if constexpr (kAsync) {
          qg_async_copy16_at(xsref + (x % G::STAGES) * G::RAW + 16 * kGemmThreads * u, src);
        } else {
          hold[u] = *reinterpret_cast<const uint4*>(src);
          hdst[u] = xr + 16 * (tid + kGemmThreads * u);
        }
      }
    }
    if constexpr (W::kRaw) {  // weights of stage x: the blocks of the window inside the row, in 16-byte pieces
      if (x < nst) {
        const int64_t w0 = wbase + int64_t(x) * S;
        const int have = int(chunks - w0 < S ? chunks - w0 : S);
        const int len = (W::CPB == 1 ? have : 1) * W::BYTES;
        const uint8_t* const sb = wblk + w0 / W::CPB * W::BYTES;  // the window in the block's first row
        uint8_t* wr = xr + G::XBYTES;
#pragma unroll
        for (int u = 0; u < G::WCOPY; ++u) {
          const int v = tid + kGemmThreads * u, r = v / G::WV, q = v % G::WV;
          if (v >= kGemmBN * G::WV || r >= nrows) continue;
          const uint8_t* g0 = sb + r * wrow;
          const int at = 16 * q - int(reinterpret_cast<uintptr_t>(g0) & 15);  // the piece's start in the window
          if (at >= len) continue;
          const uint8_t* src = g0 + at;
          uint8_t* dst = wr + r * G::WROW + 16 * q;
          uint4 piece;
          if (!wlast || src + 16 <= wend) {
            if constexpr (kAsync) {
              qg_async_copy16(dst, src);
              continue;
            }
            piece = *reinterpret_cast<const uint4*>(src);
          } else {  // the tensor's last piece, cut at its end
            uint32_t w4[4] = {0, 0, 0, 0};
            for (int e = 0; e < 16; ++e)
              if (src + e < wend) w4[e / 4] |= uint32_t(src[e]) << (8 * (e % 4));
            piece = make_uint4(w4[0], w4[1], w4[2], w4[3]);
          }
          if constexpr (kAsync) {
            *reinterpret_cast<uint4*>(dst) = piece;
          } else {
            hold[G::XCOPY + u] = piece;
            hdst[G::XCOPY + u] = dst;
          }
        }
      }
    }
    if constexpr (!kAsync) {
#pragma unroll
      for (int h = 0; h < HOLD; ++h)
        if (hdst[h]) *reinterpret_cast<uint4*>(hdst[h]) = hold[h];
    }
  };

  // ---- decode of stage s: the weights' chunks of the window to int8 codes (rows past N,
  // chunks outside the split: zeros) into tile s % 2. Weights staged raw: one thread per
  // chunk and row pair (g, g + 8) of a tile, whose fragment slots it writes whole (16-byte
  // stores; half the threads work here, yet one thread per row writing 4-byte halves
  // measured 3-17 % slower on the H200); GPTQ (read from global memory): one thread per
  // chunk and row, so every thread's loads are in flight at once (the pair form was 9 %
  // slower), each writing its half of the slots ----
  const typename W::Lut lut(a.t);
  auto decode = [&](int s) {
    int jlo, jhi;
    const int64_t w0 = window(s, jlo, jhi);
    const uint8_t* xr = gsm + (s % G::STAGES) * G::RAW;
    const Decoded dt = decoded(s & 1);
    int4* const wq = dt.wq;
    float *const wsc = dt.wsc, *const wd1 = dt.wd1, *const wm = dt.wm;
    constexpr int RPT = W::kRaw ? 2 : 1;  // rows per decode task
    constexpr int TPC = 16 / RPT;         // tasks per tile and chunk: g, then (RPT 1) h0
    for (int pi = tid; pi < kGemmBN / RPT * S; pi += kGemmThreads) {
      const int g = pi % 8, h0 = RPT == 2 ? 0 : (pi / 8) % 2;
      const int j = (pi / TPC) % S, rt = pi / (TPC * S);
      int q[RPT][8];
      float ds[RPT][SPC], ms[RPT][SPC];
#pragma unroll
      for (int h = 0; h < RPT; ++h) {
        const int r = 16 * rt + g + 8 * (h0 + h);
#pragma unroll
        for (int e = 0; e < 8; ++e) q[h][e] = 0;
#pragma unroll
        for (int s2 = 0; s2 < SPC; ++s2) ds[h][s2] = ms[h][s2] = 0.f;
        if (n0 + r < a.n && j >= jlo && j < jhi) {
          if constexpr (W::kRaw) {
            const int64_t b0 = w0 / W::CPB;
            const uint8_t* g0 = wblk + r * wrow + b0 * W::BYTES;
            const uint8_t* blk = xr + G::XBYTES + r * G::WROW + (reinterpret_cast<uintptr_t>(g0) & 15) +
                                 ((w0 + j) / W::CPB - b0) * W::BYTES;
            W::decode(blk, int((w0 + j) % W::CPB), q[h], ds[h], ms[h], a.t, lut);
          } else {
            W::chunk(a, n0 + r, w0 + j, q[h], ds[h], ms[h]);
          }
        }
      }
      const int si = (rt * S + j) * 8 + g;
      if constexpr (RPT == 2) {
        gemm_store_weight_pair(wq, rt, j, g, q[0], q[1]);
        reinterpret_cast<float4*>(wsc)[si] =
            make_float4(ds[0][0], ds[1][0], -(ds[0][0] * kGemmSeedF), -(ds[1][0] * kGemmSeedF));  // exact (gemm_scaled_isum)
        if constexpr (SPC == 2) reinterpret_cast<float2*>(wd1)[si] = make_float2(ds[0][1], ds[1][1]);
        if constexpr (MIN) reinterpret_cast<float2*>(wm)[si] = make_float2(ms[0][0], ms[1][0]);
      } else {
#pragma unroll
        for (int t2 = 0; t2 < 4; ++t2) {
          int* slot = reinterpret_cast<int*>(wq + gemm_wslot(rt, j, g, t2));
          slot[h0] = q[0][t2];
          slot[2 + h0] = q[0][t2 + 4];
        }
        wsc[4 * si + h0] = ds[0][0];
        wsc[4 * si + 2 + h0] = -(ds[0][0] * kGemmSeedF);
        if constexpr (SPC == 2) wd1[2 * si + h0] = ds[0][1];
        if constexpr (MIN) wm[2 * si + h0] = ms[0][0];
      }
    }
  };

  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int seed[4] = {kGemmSeed, kGemmSeed, kGemmSeed, kGemmSeed};

  // ---- products of stage s: the chunks of the window inside the split (tile s % 2, the
  // activations in slot (s + 1) % STAGES). This group: weight rows gn .. gn + 31 (tiles at,
  // the A operand), activation rows gm .. gm + 31 (8-row tiles bt, the B operand); output e
  // of a product: weight row g + 8 (e >> 1), activation row 2t + (e & 1) of its tiles ----
  auto use = [&](int s) {
    int jlo, jhi;
    window(s, jlo, jhi);
    const uint8_t* xr = gsm + ((s + 1) % G::STAGES) * G::RAW;
    const Decoded dt = decoded(s & 1);
    const int4* const wq = dt.wq;
    const float *const wsc = dt.wsc, *const wd1 = dt.wd1, *const wm = dt.wm;
    // The activation rows' scales. q8_K: a stage lies inside one 256-element record, so
    // every chunk's d is the record's, one load per activation row and stage; q8_1: each
    // chunk's d. The code sums (offset formats: q4_K, q5_K) per chunk, from their own run
    // (H200, M = 512: q4_K 155 -> 167 TOPS, q5_K 141.5 -> 147.5 against a load of the pair
    // {d, sum} per chunk; the same loads from the pairs' layout gave q4_K only 151.5).
    constexpr bool kStageD = Act == kGemmAct_q8_K;
    const Tile* xs = reinterpret_cast<const Tile*>(xr);
    float xdh[4][2];
    if constexpr (kStageD) {
#pragma unroll
      for (int bt = 0; bt < 4; ++bt)
#pragma unroll
        for (int c = 0; c < 2; ++c) xdh[bt][c] = __int_as_float(xs[gm + 8 * bt + 2 * t + c][8 * S]);  // chunk 0's d
    }
    // (q5_K two chunks at a time: fully unrolled it needs 24 bytes of spill on sm_90)
    constexpr int kUnroll = std::is_same_v<W, BlockWeights<Fmt_q5_K>> ? 2 : S;
    QG_UNROLL_REGS_BY(kUnroll)
    for (int j = 0; j < S; ++j) {
      if (j < jlo || j >= jhi) continue;
      float xd[4][2], xq[4][2];
#pragma unroll
      for (int bt = 0; bt < 4; ++bt)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int* row = xs[gm + 8 * bt + 2 * t + c];
          xd[bt][c] = kStageD ? xdh[bt][c] : __int_as_float(row[8 * S + j]);
          xq[bt][c] = MIN ? __int_as_float(row[9 * S + j]) : 0.f;
        }
      int af[2][4], bf[4][2];
      float4 wsv[2];
      float2 wd1v[2], wmv[2];
#pragma unroll
      for (int at = 0; at < 2; ++at) {
        const int rt = gn / 16 + at, si = (rt * S + j) * 8 + g;
        const int4 v = wq[gemm_wslot(rt, j, g, t)];
        af[at][0] = v.x;
        af[at][1] = v.y;
        af[at][2] = v.z;
        af[at][3] = v.w;
        wsv[at] = reinterpret_cast<const float4*>(wsc)[si];
        wd1v[at] = wmv[at] = make_float2(0.f, 0.f);
        if constexpr (SPC == 2) wd1v[at] = reinterpret_cast<const float2*>(wd1)[si];
        if constexpr (MIN) wmv[at] = reinterpret_cast<const float2*>(wm)[si];
      }
#pragma unroll
      for (int bt = 0; bt < 4; ++bt) {
        const int2 v = *reinterpret_cast<const int2*>(&xs[gm + 8 * bt + g][8 * j + 2 * t]);
        bf[bt][0] = v.x;  // X[row][4t..4t+3]
        bf[bt][1] = v.y;  // X[row][16+4t..]
      }
#pragma unroll
      for (int at = 0; at < 2; ++at)
#pragma unroll
        for (int bt = 0; bt < 4; ++bt) {
          int lo[4], hi[4];
          if constexpr (SPC == 1) {
            qg_mma_s8_16x8x32(lo, af[at], bf[bt], seed);
          } else {
            const int alo[2] = {af[at][0], af[at][1]}, ahi[2] = {af[at][2], af[at][3]};
            qg_mma_s8_16x8x16(lo, alo, bf[bt][0], seed);
            qg_mma_s8_16x8x16(hi, ahi, bf[bt][1], seed);
          }
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const bool h = e >> 1;  // weight row g + 8
            const int c = e & 1;    // activation row 2t + c
            const float wd0 = h ? wsv[at].y : wsv[at].x, nb = h ? wsv[at].w : wsv[at].z;
            float inner = gemm_scaled_isum(wd0, lo[e], nb);  // dsub_0 * isum_0, rounded once
            if constexpr (MIN) inner = qg_fmaf(-(h ? wmv[at].y : wmv[at].x), xq[bt][c], inner);
            if constexpr (SPC == 2) inner += (h ? wd1v[at].y : wd1v[at].x) * gemm_isum(hi[e]);
            acc[at][bt][e] += xd[bt][c] * inner;
          }
        }
    }
  };

  // planted (kGemmMutMissingSync): no synchronisation between a group's copies, its decode
  // and the products -- none of the waits and barriers below
  constexpr bool kSync = Mut != kGemmMutMissingSync;
  // Step -1 only copies and decodes (stage 0); step nst - 1 only copies and multiplies.
  // With a ring of two or more slots step -1 is peeled off (groups 0 .. STAGES - 1 copied,
  // stage 0 decoded before the loop), so the loop's products run unconditionally: measured
  // 2-3 % faster on sm_90 than the loop from -1 (docs/PERFORMANCE.md, CUDA prefill GEMM). The AMD
  // targets' one slot keeps the loop from -1 (one copy of the decode in the code object).
  constexpr int kFirst = G::STAGES > 1 ? 0 : -1;
#pragma unroll 1
  for (int x = 0; x < G::STAGES + kFirst; ++x) {
    if (x <= nst) issue(x);
    qg_async_commit();  // one group per copy group, empty ones included, so the counts below hold
  }
  if constexpr (kFirst == 0) {
    if constexpr (kSync) {
      qg_async_wait<G::STAGES - 1>();  // this thread's copies of group 0 are in
      __syncthreads();                 // everyone's are
    }
    decode(0);
  }
#pragma unroll 1
  for (int st = kFirst; st < nst; ++st) {
    if constexpr (kSync) {
      qg_async_wait<G::STAGES >= 2 ? G::STAGES - 2 : 0>();  // this thread's copies of group st + 1 are in
      __syncthreads();  // everyone's are; stage st is decoded; step st - 1 (its products, its slot) is done
    }
    if constexpr (G::STAGES == 1) {  // the one slot: group st + 1 copied now, then a second barrier
      issue(st + 1);
      if constexpr (kSync) __syncthreads();
    } else {
      if (st + G::STAGES <= nst) issue(st + G::STAGES);  // into group st's slot
      qg_async_commit();
    }
    if (st + 1 < nst) decode(st + 1);
    if (kFirst == 0 || st >= 0) use(st);
  }
  qg_async_wait<0>();  // no copy outlives the block (the ring's last, empty groups)

  const bool split = !moe && a.splits > 1;
  float* out = split ? a.partial + int64_t(blockIdx.z) * a.m * a.n : a.y;
  const int64_t ld = split ? a.n : a.ldy;
#pragma unroll
  for (int at = 0; at < 2; ++at)
#pragma unroll
    for (int bt = 0; bt < 4; ++bt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t r = m0 + gm + 8 * bt + 2 * t + (e & 1), c = n0 + gn + 16 * at + g + (e >> 1) * 8;
        if (r < rows && c < a.n) out[(moe ? list[r] : r) * ld + c] = acc[at][bt][e];
      }
}

// y = partial[0] + partial[1] + ... + partial[used-1], in that order (static: one copy per
// translation unit that includes this header).
static __global__ void gemm_split_reduce(const float* __restrict__ partial, float* __restrict__ y, int64_t m, int64_t n,
                                  int64_t ldy, int used) {
  const int64_t total = m * n, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    float s = partial[i];
    for (int z = 1; z < used; ++z) s += partial[z * total + i];
    y[(i / n) * ldy + i % n] = s;
  }
}

// a.xq -> a.xpack (gemm_pack_acts), for a.m rows, in the order W's codes come in.
template <class W, int Act>
void gemm_pack(const GemmArgs& a, gpuStream_t s) {
  const int64_t threads = a.m * ((a.k / 32 + kGemmStage - 1) / kGemmStage) * kGemmStage;
  const unsigned blocks = unsigned((threads + 255) / 256);
  gemm_pack_acts<Act, W::kPermX><<<blocks, 256, 0, s>>>(a.xq, a.xpack, a.m, a.k);
}

// Launch of one instance with its shared memory (on CUDA dynamic, above the static 48 KiB
// after the opt-in; a failed opt-in surfaces as the launch's error).
template <class W, int Act, int Mut, bool Moe>
void gemm_launch_kernel(const dim3& grid, const GemmArgs& a, gpuStream_t s) {
  using G = GemmGeom<W, Moe>;
#if QG_DYN_SMEM
  (void)gpuFuncSetAttribute(reinterpret_cast<const void*>(&gemm_kernel<W, Act, Mut, Moe>),
                            gpuFuncAttributeMaxDynamicSharedMemorySize, G::SMEM);
  gemm_kernel<W, Act, Mut, Moe><<<grid, kGemmThreads, G::SMEM, s>>>(a);
#else
  gemm_kernel<W, Act, Mut, Moe><<<grid, kGemmThreads, 0, s>>>(a);
#endif
}

template <class W, int Act, int Mut>
void launch_gemm(const GemmArgs& a, void* stream) {
  if (a.m <= 0 || a.n <= 0) return;
  const gpuStream_t s = static_cast<gpuStream_t>(stream);
  gemm_pack<W, Act>(a, s);
  const dim3 grid(unsigned((a.n + kGemmBN - 1) / kGemmBN), unsigned((a.m + kGemmBM - 1) / kGemmBM), unsigned(a.splits));
  gemm_launch_kernel<W, Act, Mut, false>(grid, a, s);
  if (a.splits > 1) {
    int used = a.splits;
    // planted: a short last split (K not a multiple of the split) left out of the sum
    if (Mut == kGemmMutSplitUnreduced && (a.k / 32) % a.split_chunks != 0) used = a.splits - 1;
    const int64_t total = a.m * a.n;
    const int64_t blocks = (total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096;
    gemm_split_reduce<<<unsigned(blocks), 256, 0, s>>>(a.partial, a.y, a.m, a.n, a.ldy, used);
  }
}

}  // namespace qgate::cuk

