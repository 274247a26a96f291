// Reference indexed-MoE contraction (ggml's mul_mat_id): E experts of N x K weights stacked
// in one tensor (rows e*N .. e*N+N-1 are expert e), m tokens of K activations, and for each
// token t its top_k expert ids ids[t][s]. Output row t*top_k + s is expert ids[t][s]'s
// contraction with token t:
//   y[t][s][j] = sum_k W_{ids[t][s]}[j][k] * x'[t][k]
// with x' the kernel's declared activation quantization of token t (per token, as every
// quantization here is per row). Value and bound per element are exactly matmul_ref's for
// that expert and token (contract.hpp), so the bound is the same first-principles bound.
#pragma once
#include <cstdint>

#include "oracles/ops/contract.hpp"

namespace qgate {

// w: E*N rows (block formats only). ids: m*top_k entries, each in [0, experts).
// Errors: experts < 1, w.n not a multiple of experts, an id out of range, what matmul_ref refuses.
DecodeError moe_matmul_ref(const QTensor& w, int64_t experts, const float* x, int64_t m, const int32_t* ids,
                           int64_t top_k, const Precision& p, Reference& out);

}  // namespace qgate
