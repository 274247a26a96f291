// Prefill GEMM on int8 tile products: y[r][row] = sum_k W[row][k] * x'[r][k] for any M
// (meant for M >= 16; the decode mat-vec takes M <= 8). One thread block computes a
// kGemmBM x kGemmBN output tile (128 activation rows x 64 weight rows) with kGemmThreads
// threads in 8 tile groups of 32 lanes (the fragment layout of qg_mma_s8_*; vendor.cuh),
// each group a 32 x 32 sub-tile. K runs in stages of kGemmStage 32-element chunks:
//   load   activation codes (int8) with the chunk's f32 scale dx (and, for formats with a
//          sub-block offset, the exact code sum of each sub-block), and the weight codes
//          of the chunk decoded once per block to int8 with their sub-block scale and
//          offset (exact f32), both into shared memory in the fragment-friendly layout
//          below; one barrier;
//   use    per chunk and sub-block an exact int32 tile product (m16n8k32, or two m16n8k16
//          for 16-element sub-blocks), then per output in f32
//            inner = sum_s (dsub_s * isum_s - msub_s * qsum_s);  acc += dx * inner
//          with the fragments read by 8-byte shared loads and the scales held in
//          registers per chunk; one barrier before the next stage overwrites the tiles.
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

// Weight chunks of a GGUF block format: row `row`, chunk `c` (elements 32c..32c+31).
template <class F>
struct BlockWeights {
  static constexpr int L = F::SUB < 32 ? F::SUB : 32;  // elements of one sub-block in a chunk
  static constexpr int SPC = 32 / L;                   // sub-blocks per chunk (1 or 2 here)
  static constexpr bool MIN = F::MIN;
  QG_DEV static void chunk(const GemmArgs& a, int64_t row, int64_t c, int (&q)[8], float (&ds)[SPC],
                           float (&ms)[SPC]) {
    constexpr int CPB = F::QK / 32;
    const uint8_t* blk = a.w + row * (a.k / F::QK) * F::BYTES + (c / CPB) * F::BYTES;
    if constexpr (FastChunk<F>::ok) {  // the same codes and scales from word loads (gemm_decode.cuh)
      FastChunk<F>::decode(blk, int(c % CPB), q, ds, ms, a.t);
      return;
    }
    const int base = int(c % CPB) * 32;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      uint32_t p = 0;
#pragma unroll
      for (int l = 0; l < 4; ++l) p |= uint32_t(uint8_t(int8_t(F::code(blk, base + 4 * e + l, a.t)))) << (8 * l);
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
struct GptqWeights {
  static constexpr int SPC = 1;
  static constexpr bool MIN = false;
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

// One chunk of one activation row: 8 ints of codes and the f32 scale.
template <int Act>
QG_DEV void act_chunk(const GemmArgs& a, int64_t row, int64_t c, int (&q)[8], float& d) {
  const uint8_t* xb;
  if constexpr (Act == kGemmAct_q8_1) {
    xb = a.xq + (row * (a.k / 32) + c) * 36;
    d = gemm_f16_to_f32(*reinterpret_cast<const uint16_t*>(xb));  // exact, as (float)rf16
    xb += 4;
  } else {
    xb = a.xq + (row * (a.k / 256) + c / 8) * 292;
    d = __uint_as_float(ru32(xb, 0));
    xb += 4 + 32 * (c % 8);
  }
  const int* xv = reinterpret_cast<const int*>(xb);  // 4-byte aligned: 36 and 292 are multiples of 4
#pragma unroll
  for (int e = 0; e < 8; ++e) q[e] = xv[e];
}

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

// Shared-memory code layout: one row of a stage is kGemmStage chunks of 8 ints; inside a
// chunk int e (k = 4e..4e+3) is stored at position 2e (e < 4) or 2(e - 4) + 1 (e >= 4), so
// the two ints a lane needs of a row ({e = t, e = t + 4}, t = lane % 4: a0/a2 or a1/a3 of
// the A fragment, b0/b1 of the B fragment; vendor.cuh) are one 8-byte read. Rows are
// 8 * kGemmStage + 8 ints apart: the 4 rows of a half group's 8-byte reads start 8 banks
// apart, so fragment reads are free of bank conflicts.
QG_DEV void gemm_store_codes(int* dst, const int (&q)[8]) {
  reinterpret_cast<int4*>(dst)[0] = make_int4(q[0], q[4], q[1], q[5]);
  reinterpret_cast<int4*>(dst)[1] = make_int4(q[2], q[6], q[3], q[7]);
}

// Two blocks per SM on sm_90 (at most 128 registers: without the bound ptxas settles at 80
// and spills).
template <class W, int Act, int Mut, bool Moe = false>
__global__ void __launch_bounds__(kGemmThreads, 2) gemm_kernel(const GemmArgs p) {
  constexpr int SPC = W::SPC;
  constexpr bool MIN = W::MIN;
  constexpr int S = kGemmStage;
  constexpr int XS = 8 * S + 8;  // ints per row (above)
  constexpr int GROUPS_M = kGemmBM / 32;
  static_assert(kGemmThreads == (kGemmBM / 32) * (kGemmBN / 32) * kTileGroup, "one 32 x 32 sub-tile per tile group");
  static_assert(XS % 32 == 8 && XS % 4 == 0, "rows 8 banks apart, 16-byte aligned");
  __shared__ __align__(16) int xs[kGemmBM][XS];
  __shared__ __align__(16) int ws[kGemmBN][XS];
  __shared__ float xd[S][kGemmBM];
  __shared__ __align__(8) float wd[S * SPC][kGemmBN];
  __shared__ __align__(8) float wm[MIN ? S * SPC : 1][kGemmBN];
  __shared__ float xsum[MIN ? S * SPC : 1][kGemmBM];

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

  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int seed[4] = {kGemmSeed, kGemmSeed, kGemmSeed, kGemmSeed};

  for (int64_t s0 = cbeg; s0 < cend; s0 += S) {
    const int nch = int(cend - s0 < S ? cend - s0 : S);
    // ---- load: activations (rows past M and chunks past the split are zeros) ----
#pragma unroll 1
    for (int p = tid; p < kGemmBM * S; p += kGemmThreads) {
      const int i = p / S, j = p % S;
      int q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      float d = 0.f;
      if (m0 + i < rows && j < nch) act_chunk<Act>(a, moe ? list[m0 + i] / a.top_k : m0 + i, s0 + j, q, d);
      gemm_store_codes(&xs[i][8 * j], q);
      xd[j][i] = d;
      if constexpr (MIN) {
        constexpr int L = 32 / SPC;
#pragma unroll
        for (int s = 0; s < SPC; ++s) {
          int sum = 0;
#pragma unroll
          for (int e = s * L / 4; e < (s + 1) * L / 4; ++e) sum = qg_dp4a(0x01010101, q[e], sum);
          xsum[SPC * j + s][i] = float(sum);  // exact: |sum| <= 32 * 128
        }
      }
    }
    // ---- load: weights, decoded once per block to int8 codes (rows past N are zeros) ----
    for (int p = tid; p < kGemmBN * S; p += kGemmThreads) {
      const int r = p / S, j = p % S;
      int q[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      float ds[SPC], ms[SPC];
#pragma unroll
      for (int s = 0; s < SPC; ++s) ds[s] = ms[s] = 0.f;
      if (n0 + r < a.n && j < nch) W::chunk(a, n0 + r, s0 + j, q, ds, ms);
      gemm_store_codes(&ws[r][8 * j], q);
#pragma unroll
      for (int s = 0; s < SPC; ++s) {
        wd[SPC * j + s][r] = ds[s];
        if constexpr (MIN) wm[SPC * j + s][r] = ms[s];
      }
    }
    if constexpr (Mut != kGemmMutMissingSync) __syncthreads();  // planted: used before every group has loaded
    // ---- use: every chunk of the stage (those past nch hold zero codes and scales: each
    // adds an exact +0 to the sums) ----
    QG_UNROLL_REGS
    for (int j = 0; j < S; ++j) {
      int af[2][4], bf[4][2];
      float xr[2][2], xq[MIN ? SPC : 1][2][2];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = gm + 16 * mt + g + 8 * h;
          const int2 v = *reinterpret_cast<const int2*>(&xs[r][8 * j + 2 * t]);
          af[mt][h] = v.x;      // A[r][4t..4t+3]
          af[mt][2 + h] = v.y;  // A[r][16+4t..]
          xr[mt][h] = xd[j][r];
          if constexpr (MIN) {
#pragma unroll
            for (int s = 0; s < SPC; ++s) xq[s][mt][h] = xsum[SPC * j + s][r];
          }
        }
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int2 v = *reinterpret_cast<const int2*>(&ws[gn + 8 * nt + g][8 * j + 2 * t]);
        bf[nt][0] = v.x;
        bf[nt][1] = v.y;
      }
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        const int c = gn + 8 * nt + 2 * t;  // this lane's two columns: c, c + 1
        float2 wdv[SPC], wmv[SPC];
#pragma unroll
        for (int s = 0; s < SPC; ++s) {
          wdv[s] = *reinterpret_cast<const float2*>(&wd[SPC * j + s][c]);
          if constexpr (MIN) wmv[s] = *reinterpret_cast<const float2*>(&wm[SPC * j + s][c]);
        }
        // -(dsub_0 * 1.5 * 2^23), exact (gemm_scaled_isum)
        const float nb[2] = {-(wdv[0].x * kGemmSeedF), -(wdv[0].y * kGemmSeedF)};
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          int lo[4], hi[4];
          if constexpr (SPC == 1) {
            qg_mma_s8_16x8x32(lo, af[mt], bf[nt], seed);
          } else {
            const int alo[2] = {af[mt][0], af[mt][1]}, ahi[2] = {af[mt][2], af[mt][3]};
            qg_mma_s8_16x8x16(lo, alo, bf[nt][0], seed);
            qg_mma_s8_16x8x16(hi, ahi, bf[nt][1], seed);
          }
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int h = e >> 1;
            const float wd0 = (e & 1) ? wdv[0].y : wdv[0].x;
            float inner = gemm_scaled_isum(wd0, lo[e], (e & 1) ? nb[1] : nb[0]);  // dsub_0 * isum_0, rounded once
            if constexpr (MIN) {
              const float wm0 = (e & 1) ? wmv[0].y : wmv[0].x;
              inner = qg_fmaf(-wm0, xq[0][mt][h], inner);
            }
            if constexpr (SPC == 2) {
              const float wd1 = (e & 1) ? wdv[1].y : wdv[1].x;
              if constexpr (MIN) {
                const float wm1 = (e & 1) ? wmv[1].y : wmv[1].x;
                inner += wd1 * gemm_isum(hi[e]) - wm1 * xq[1][mt][h];
              } else {
                inner += wd1 * gemm_isum(hi[e]);
              }
            }
            acc[mt][nt][e] += xr[mt][h] * inner;
          }
        }
      }
    }
    __syncthreads();  // every group done with this stage before the next overwrites it
  }

  const bool split = !moe && a.splits > 1;
  float* out = split ? a.partial + int64_t(blockIdx.z) * a.m * a.n : a.y;
  const int64_t ld = split ? a.n : a.ldy;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t r = m0 + gm + 16 * mt + g + (e >> 1) * 8, c = n0 + gn + 8 * nt + 2 * t + (e & 1);
        if (r < rows && c < a.n) out[(moe ? list[r] : r) * ld + c] = acc[mt][nt][e];
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

template <class W, int Act, int Mut>
void launch_gemm(const GemmArgs& a, void* stream) {
  if (a.m <= 0 || a.n <= 0) return;
  const gpuStream_t s = static_cast<gpuStream_t>(stream);
  const dim3 grid(unsigned((a.n + kGemmBN - 1) / kGemmBN), unsigned((a.m + kGemmBM - 1) / kGemmBM), unsigned(a.splits));
  gemm_kernel<W, Act, Mut><<<grid, kGemmThreads, 0, s>>>(a);
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

