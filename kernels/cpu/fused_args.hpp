// The tensors and parameters of a fusion or attention kernel (KernelInfo::fused). One struct
// for every fused op: each op reads the fields its comment names and ignores the rest.
// Layouts are row-major and dense; every pointer is a host pointer on the CPU backend.
#pragma once
#include <cstdint>

#include "core/kernel.hpp"

namespace qgate {

enum class RopeMode : int {
  neox,         // pairs (i, i + d/2): GPT-NeoX, Llama in HF layout, ggml mode 2
  interleaved,  // pairs (2i, 2i + 1): GPT-J, original Llama, ggml mode 0
};

struct FusedArgs {
  Op op = Op::add_rmsnorm;
  // The kernel being called (kernels that run elsewhere, plugins, find their process by it).
  const KernelInfo* kernel = nullptr;

  // add_rmsnorm: h = x + res (written to out1), y = h / sqrt(mean(h^2) + eps) * w (out0).
  //   x, res: [rows][n]; w: [n]; out0, out1: [rows][n].
  // silu_mul:    out0 = silu(x) * res, x = gate, res = up: [rows][n].
  // moe_route:   x = router logits [rows][n] (n experts); ids [rows][top_k] (descending
  //   probability, equal probabilities: lower expert index first), out0 = weights
  //   [rows][top_k], renormalized to sum 1 over the chosen experts.
  int64_t rows = 0, n = 0, top_k = 0;
  const float* x = nullptr;
  const float* res = nullptr;
  const float* w = nullptr;
  float eps = 0;
  int32_t* ids = nullptr;

  // qk_norm_rope: per head, q and k RMS-normalized over d (weights w_q, w_k, eps), then
  //   rotated by RoPE at position pos[t] (theta_i = pos * rope_base^(-2i/d)); q written to
  //   out0 [tokens][n_head][d]; k and v written to the caches k_cache/v_cache
  //   [n_head_kv][kv_cap][d] at row pos[t]. Other cache rows are left untouched.
  //   q: [tokens][n_head][d]; k, v: [tokens][n_head_kv][d].
  // attention:   out0[t][h][d] = softmax_j(scale * q[t][h] . k_cache[h / g][j] + mask) . v_cache[h / g][j]
  //   over the kv_len cached rows, g = n_head / n_head_kv; causal: query t sits at position
  //   kv_len - tokens + t and sees rows j <= that position.
  int64_t tokens = 0, n_head = 0, n_head_kv = 0, d = 0, kv_len = 0, kv_cap = 0;
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const float* w_q = nullptr;
  const float* w_k = nullptr;
  const int32_t* pos = nullptr;
  float rope_base = 10000.0f;
  RopeMode rope_mode = RopeMode::neox;
  float scale = 1.0f;
  float* k_cache = nullptr;  // qk_norm_rope writes; attention reads (const)
  float* v_cache = nullptr;

  float* out0 = nullptr;
  float* out1 = nullptr;

  // Guard bytes on each side of out0, out1, ids, k_cache, v_cache (0 = none): a device
  // backend mirrors each output with its guards, so device-side writes past it are seen.
  size_t red_out0 = 0, red_out1 = 0, red_ids = 0, red_k = 0, red_v = 0;
};

}  // namespace qgate
