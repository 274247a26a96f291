// The tensors and parameters of a fusion or attention kernel (LaunchArgs::fused). One struct
// for every fused op: each op reads the fields its comment names and ignores the rest.
// Layouts are row-major and dense; every pointer is a host pointer on the CPU backend.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/kernel.hpp"

namespace qgate {

enum class RopeMode : int {
  neox,         // pairs (i, i + d/2): GPT-NeoX, Llama in HF layout, ggml mode 2
  interleaved,  // pairs (2i, 2i + 1): GPT-J, original Llama, ggml mode 0
};

struct FusedArgs {
  Op op = Op::add_rmsnorm;

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

// RoPE's frequencies for head dim d, as every backend's qk_norm_rope forms them in f32:
// freq_i = powf(base, f32(-2i / d)), i < d / 2 (theta_i = f32(pos) * freq_i).
inline std::vector<float> rope_frequencies(float base, int64_t d) {
  std::vector<float> freq(static_cast<size_t>(d / 2));
  for (int64_t i = 0; i < d / 2; ++i) freq[i] = std::pow(base, static_cast<float>(-2 * i) / static_cast<float>(d));
  return freq;
}

// The checks every backend's kernel of the op makes before it reads anything (sizes, the
// tensors the op needs, eps, positions inside the cache, the attention window): why the call
// is refused, nullptr when it is not. Each backend adds its own limits (head dims, experts,
// grid sizes) after these.
inline const char* fused_args_error(const FusedArgs& a) {
  switch (a.op) {
    case Op::add_rmsnorm:
      if (a.rows < 1 || a.n < 1) return "add_rmsnorm: rows and n must be >= 1";
      if (!a.x || !a.res || !a.w || !a.out0 || !a.out1) return "add_rmsnorm: a tensor is missing";
      if (!(a.eps > 0)) return "add_rmsnorm: eps must be > 0";
      return nullptr;
    case Op::silu_mul:
      if (a.rows < 1 || a.n < 1) return "silu_mul: rows and n must be >= 1";
      if (!a.x || !a.res || !a.out0) return "silu_mul: a tensor is missing";
      return nullptr;
    case Op::moe_route:
      if (a.rows < 1 || a.n < 1 || a.top_k < 1 || a.top_k > a.n) return "moe_route: need rows >= 1 and 1 <= top_k <= experts";
      if (!a.x || !a.out0 || !a.ids) return "moe_route: a tensor is missing";
      return nullptr;
    case Op::qk_norm_rope:
      if (a.tokens < 1 || a.n_head < 1 || a.n_head_kv < 1) return "qk_norm_rope: tokens and heads must be >= 1";
      if (a.d < 2 || a.d % 2) return "qk_norm_rope: head dim must be even and >= 2";
      if (!a.q || !a.k || !a.v || !a.w_q || !a.w_k || !a.pos || !a.out0 || !a.k_cache || !a.v_cache)
        return "qk_norm_rope: a tensor is missing";
      if (!(a.eps > 0)) return "qk_norm_rope: eps must be > 0";
      for (int64_t t = 0; t < a.tokens; ++t)
        if (a.pos[t] < 0 || a.pos[t] >= a.kv_cap) return "qk_norm_rope: a position lies outside the KV cache";
      return nullptr;
    case Op::attention:
      if (a.tokens < 1 || a.n_head < 1 || a.n_head_kv < 1 || a.d < 1 || a.kv_len < 1)
        return "attention: tokens, heads, d and kv_len must be >= 1";
      if (a.n_head % a.n_head_kv) return "attention: n_head is not a multiple of n_head_kv";
      if (a.tokens > a.kv_len || a.kv_len > a.kv_cap) return "attention: need tokens <= kv_len <= kv_cap";
      if (!a.q || !a.k_cache || !a.v_cache || !a.out0) return "attention: a tensor is missing";
      return nullptr;
    default:
      return "not a fused op";
  }
}

}  // namespace qgate
