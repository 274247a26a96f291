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

// w: n*k weights in blocks; out: n*k elements of `o`, row-major.
using DequantLaunch = void (*)(const uint8_t* w, int64_t n, int64_t k, void* out, OutType o, const IqTables& t,
                               void* stream);
// xq: m rows of quantized activations (q8_1 or q8_K blocks, as quantize_* writes them);
// y: m rows of n f32 outputs, row stride ldy. m <= kMatvecRows.
using MatvecLaunch = void (*)(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                              int64_t ldy, const IqTables& t, void* stream);

#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family) \
  void dequant_##fmt(const uint8_t*, int64_t, int64_t, void*, OutType, const IqTables&, void*);
#define QGATE_CUDA_FORMAT(fmt, act, family) \
  QGATE_CUDA_DEQUANT_FORMAT(fmt, family)    \
  void matvec_##fmt(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t, const IqTables&, void*);
#include "kernels/cuda/kernels.inc"
#undef QGATE_CUDA_FORMAT
#undef QGATE_CUDA_DEQUANT_FORMAT

// Activation quantization of m rows of k f32 values into GGUF blocks, bit-exact to
// oracles/ops/quantize_act.cpp: q8_1 (36 bytes per 32: fp16 d, fp16 s, int8 q) and
// q8_K (292 bytes per 256: f32 d, int8 q, int16 bsums).
void quantize_q8_1(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream);
void quantize_q8_K(const float* x, int64_t m, int64_t k, uint8_t* out, void* stream);

// The replay probe's chain (replay_chain.cu): RoPE at the position read from device memory
// with a KV-cache append at that row, and the sum over cache rows 0..pos.
void rope_kv(const float* x, const uint32_t* pos, float* xr, float* kv, uint32_t d, void* stream);
void kv_sum(const float* kv, const uint32_t* pos, float* s, uint32_t d, void* stream);

#ifdef QGATE_MUTANTS  // kernels/cuda/mutants.cu, in the mutant build only
void mutant_rope_kv_pos_by_value(const float* x, uint32_t pos, float* xr, float* kv, uint32_t d, void* stream);
void mutant_matvec_q4_0_crossed_lanes(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                      const IqTables&, void*);
void mutant_matvec_q4_K_rows_past_m(const uint8_t*, const uint8_t*, float*, int64_t, int64_t, int, int64_t,
                                    const IqTables&, void*);
#endif

}  // namespace qgate::cuk
