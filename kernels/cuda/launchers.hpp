// Host entry points of the CUDA kernels (plain C++: no vendor header needed to call them).
// Each enqueues on `stream` (the runtime's) and returns at once; the caller collects
// launch and execution errors with cu::Runtime::sync. Declared from kernels.inc.
#pragma once
#include <cstdint>

#include "kernels/cuda/iq_tables_dev.hpp"
#include "oracles/ops/precision.hpp"

namespace qgate::cuk {

// Mat-vec shape: one thread block per weight row, kMatvecThreads threads striding over
// the row's 32-element chunks, kMatvecRows activation rows (M) per launch.
inline constexpr int kMatvecThreads = 128;
inline constexpr int kMatvecRows = 8;
// The GPTQ mat-vec (matvec_gptq.cu): threads along k per output column (its tree's width).
inline constexpr int kGptqMatvecKThreads = 16;

// w: n*k weights in blocks; out: n*k elements of `o`, row-major.
using DequantLaunch = void (*)(const uint8_t* w, int64_t n, int64_t k, void* out, OutType o, const IqTables& t,
                               void* stream);
// xq: m rows of quantized activations (q8_1 or q8_K blocks, as quantize_* writes them);
// y: m rows of n f32 outputs, row stride ldy. m <= kMatvecRows.
using MatvecLaunch = void (*)(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                              int64_t ldy, const IqTables& t, void* stream);

// Prefill GEMM (gemm.cuh): y[m][n] = sum_k W[n][k] x'[m][k] on int8 tile products, an
// output tile of kGemmBM activation rows x kGemmBN weight rows per thread block of
// kGemmThreads (8 tile groups of 32 x 32), K in stages of kGemmStage 32-element chunks.
// Split-K (grid z) when the output has fewer tiles than kGemmSplitTarget: each split sums
// a contiguous range of split_chunks chunks into its own partial[z][m][n], and one pass
// adds the partials in split order (so the result does not depend on scheduling).
inline constexpr int kGemmBM = 128, kGemmBN = 64, kGemmThreads = 256, kGemmStage = 4;
inline constexpr int64_t kGemmSplitTarget = 128, kGemmSplitMinChunks = 6, kGemmMaxSplits = 16;

struct GemmArgs {
  const uint8_t* w = nullptr;   // block formats: n rows of k/QK blocks
  const uint8_t* xq = nullptr;  // m rows of q8_1 / q8_K blocks (quantize_*)
  // Scratch the launcher repacks xq into (gemm.cuh gemm_pack_acts): per row, per group of
  // kGemmStage chunks, the group's codes in the tile's order, then its chunks' f32 d, then
  // their f32 code sums; gemm_xpack_bytes(m, k) bytes, allocated by the caller, 16-byte aligned.
  uint8_t* xpack = nullptr;
  float* y = nullptr;           // m rows of n, row stride ldy
  float* partial = nullptr;     // splits x m x n (splits > 1)
  int64_t n = 0, k = 0, m = 0, ldy = 0;
  int splits = 1;
  int64_t split_chunks = 0;     // chunks per split (the last may have fewer)
  // GPTQ (auto_gptq v1 container, group a multiple of 32, no g_idx): the arrays.
  const uint32_t* qweight = nullptr;
  const uint32_t* qzeros = nullptr;
  const uint16_t* scales = nullptr;
  int64_t group = 0;
  // Expert-grouped MoE (moe.cu): per expert e, moe_count[e] slots listed at
  // moe_list[e * moe_cap ..]; weights of expert e at w + e * expert_bytes; slot = t*top_k + s.
  const int32_t* moe_list = nullptr;
  const int32_t* moe_count = nullptr;
  int64_t moe_cap = 0, expert_bytes = 0;
  int top_k = 1;
  IqTables t;
};
inline int64_t gemm_xpack_bytes(int64_t m, int64_t k) {
  return m * ((k / 32 + kGemmStage - 1) / kGemmStage) * (kGemmStage * 40);
}
// The kernel addresses the repacked activations in 16-byte units with 32-bit offsets.
inline bool gemm_xpack_fits(int64_t m, int64_t k) { return gemm_xpack_bytes(m, k) / 16 < int64_t(0xFFFFFFFF); }
// The split-K plan for an m x n x k GEMM: sets splits and split_chunks.
inline void gemm_plan(GemmArgs& a) {
  const int64_t chunks = a.k / 32;
  const int64_t tiles = ((a.m + kGemmBM - 1) / kGemmBM) * ((a.n + kGemmBN - 1) / kGemmBN);
  int64_t s = 1;
  if (tiles < kGemmSplitTarget) {
    s = (kGemmSplitTarget + tiles - 1) / tiles;
    const int64_t by_k = (chunks + kGemmSplitMinChunks - 1) / kGemmSplitMinChunks;
    s = s < by_k ? s : by_k;
    s = s < kGemmMaxSplits ? s : kGemmMaxSplits;
    if (s < 1) s = 1;
  }
  a.split_chunks = (chunks + s - 1) / s;
  a.splits = int((chunks + a.split_chunks - 1) / a.split_chunks);
  if (a.splits < 1) a.splits = 1;
}
using GemmLaunch = void (*)(const GemmArgs& a, void* stream);

// Indexed MoE (moe.cu), ids[m * top_k] read on the device. Decode: one block per (weight row,
// slot), M <= kMatvecRows tokens; w holds `experts` experts of n rows, y m*top_k rows of n.
using MoeMatvecLaunch = void (*)(const uint8_t* w, const uint8_t* xq, const int32_t* ids, float* y, int64_t n,
                                 int64_t k, int m, int top_k, int experts, const IqTables& t, void* stream);
// Prefill: the slots grouped per expert on the device (list, count: experts * m * top_k and
// experts int32 of scratch), then the GEMM per expert. a: m tokens, n rows per expert,
// y m*top_k rows of n, xq the tokens' activations, w all experts.
using MoeGemmLaunch = void (*)(const GemmArgs& a, int experts, const int32_t* ids, int32_t* list, int32_t* count,
                               void* stream);

#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family) \
  void dequant_##fmt(const uint8_t*, int64_t, int64_t, void*, OutType, const IqTables&, void*);
#define QGATE_CUDA_FORMAT(fmt, act, family) \
  QGATE_CUDA_DEQUANT_FORMAT(fmt, family)    \
  void matvec_##fmt(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t, const IqTables&, void*);
#define QGATE_CUDA_GEMM(fmt, act, family) void gemm_##fmt(const GemmArgs&, void*);
#define QGATE_CUDA_MOE(fmt, act)                                                                           \
  void moe_matvec_##fmt(const uint8_t*, const uint8_t*, const int32_t*, float*, int64_t, int64_t, int, int, int, \
                        const IqTables&, void*);                                                           \
  void moe_gemm_##fmt(const GemmArgs&, int, const int32_t*, int32_t*, int32_t*, void*);
#define QGATE_CUDA_GPTQ(fmt, act)                                                                    \
  void dequant_##fmt(const uint8_t*, int64_t, int64_t, void*, OutType, const IqTables&, void*);         \
  void matvec_##fmt(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t, const IqTables&, void*);
// Float formats: the same MatvecLaunch, xq holding m rows of k f32 activations.
#define QGATE_CUDA_FLOAT_MATVEC(fmt) \
  void matvec_f32_##fmt(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t, const IqTables&, void*);
#include "kernels/cuda/kernels.inc"

// Activation quantization of m rows of k f32 values into GGUF blocks, bit-exact to
// oracles/ops/quantize_act.cpp: q8_1 (36 bytes per 32: fp16 d, fp16 s, int8 q) and
// q8_K (292 bytes per 256: f32 d, int8 q, int16 bsums).
void quantize_q8_1(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream);
void quantize_q8_K(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream);

// The fragment test of vendor.cuh's int8 tile products (mma_check.cu, mma_test.cpp):
// per tile 32 lanes x {a0..a3, b0, b1} in, 32 lanes x 16 results out.
void mma_check(const int* frag, int* out, int tiles, void* stream);

// The replay probe's chain (replay_chain.cu): RoPE at the position read from device memory
// with a KV-cache append at that row, and the sum over cache rows 0..pos.
void rope_kv(const float* x, const uint32_t* pos, float* xr, float* kv, uint32_t d, void* stream);
void kv_sum(const float* kv, const uint32_t* pos, float* s, uint32_t d, void* stream);

#ifdef QGATE_MUTANTS  // kernels/cuda/mutants.cu, in the mutant build only
void mutant_rope_kv_pos_by_value(const float* x, uint32_t pos, float* xr, float* kv, uint32_t d, void* stream);
void mutant_matvec_q4_0_crossed_lanes(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                      const IqTables&, void*);
void mutant_gemm_q4_0_missing_sync(const GemmArgs&, void*);
void mutant_moe_matvec_q4_K_wrong_slot(const uint8_t*, const uint8_t*, const int32_t*, float*, int64_t, int64_t, int,
                                       int, int, const IqTables&, void*);
void mutant_gemm_q4_K_split_unreduced(const GemmArgs&, void*);
void mutant_matvec_q4_K_rows_past_m(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                    const IqTables&, void*);
void mutant_matvec_q8_0_grid_capped(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                    const IqTables&, void*);
void mutant_matvec_q4_K_single_sweep(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                     const IqTables&, void*);
#endif

}  // namespace qgate::cuk
