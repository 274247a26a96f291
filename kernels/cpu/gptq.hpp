#pragma once
#include <cstdint>

#include "oracles/formats/format.hpp"
#include "oracles/ops/precision.hpp"

namespace qgate::cpu {
template <OutType O>
const char* gptq_dequant(const uint8_t* w, int64_t n, int64_t k, void* out);
const char* gptq_matvec_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
const char* gptq_gemm_f32(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
// Sym = true: the zero point 8 folded in as a constant (refuses non-symmetric checkpoints).
template <bool Sym>
const char* gptq_matvec_q8_1(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
}  // namespace qgate::cpu
