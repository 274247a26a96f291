// Host entry points of the CUDA fusion and attention kernels (kernels/cuda/fused_*.cu),
// plain C++: every pointer is a device pointer; each enqueues on `stream` and returns at
// once (fused_launch.cpp syncs). The arithmetic each kernel declares is in its source and
// in docs/FUSIONS.md ("CUDA").
#pragma once
#include <cstdint>

namespace qgate::cuk {

// Threads per block of the norms (one block per row / head vector): each thread sums
// ceil(n / kNormThreads) squares, then a log2(kNormThreads)-level tree in shared memory.
inline constexpr int kNormThreads = 128;
inline constexpr int kNormLevels = 7;  // log2(kNormThreads)
// Attention: one block of kAttnThreads per query row, each thread owning head dims
// i = tid + kAttnThreads * c (c < kAttnMaxD / kAttnThreads); flash tiles of kAttnTile keys.
inline constexpr int kAttnThreads = 128;
inline constexpr int kAttnMaxD = 256;
inline constexpr int kAttnTile = 32;
// Router: one block of kRouteThreads per row, at most kRouteMaxExperts experts, top_k <= 8.
inline constexpr int kRouteThreads = 64;
inline constexpr int kRouteMaxExperts = 256;
inline constexpr int kRouteMaxK = 8;

enum class AttnP : int { f32, f16, bf16 };

// h = x + r (h: [rows][n]), y = h * (1 / sqrt(sum(h^2) / n + eps)) * w.
void fused_add_rmsnorm(const float* x, const float* r, const float* w, float* y, float* h, int64_t rows, int64_t n,
                       float eps, void* stream);
// Per (token, head) row: RMSNorm over d (weights wq / wk), RoPE at pos[t] (read on the
// device) with freq[i] (d/2 f32, computed on the host), q -> oq, k -> k_cache and v ->
// v_cache at row pos[t] of [n_head_kv][kv_cap][d].
void fused_qk_norm_rope(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                        const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache, int64_t tokens,
                        int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap, bool neox, float eps, void* stream);
// softmax -> top-k (ties: lower index) -> renormalized weights.
void fused_moe_route(const float* logits, float* weights, int32_t* ids, int64_t rows, int64_t experts, int64_t top_k,
                     void* stream);
// y = g / (1 + exp(-g)) * u over n elements.
void fused_silu_mul(const float* g, const float* u, float* y, int64_t n, void* stream);
// Causal GQA attention; eager materializes P in scratch ([tokens * n_head][kv_len] f32).
void fused_attn_eager(const float* q, const float* k, const float* v, float* o, float* scratch, int64_t tokens,
                      int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale,
                      void* stream);
void fused_attn_flash(AttnP p, const float* q, const float* k, const float* v, float* o, int64_t tokens, int64_t n_head,
                      int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale, void* stream);

#ifdef QGATE_MUTANTS  // kernels/cuda/fused_mutants.cu, in the mutant build only
void mutant_fused_attn_flash_rescale_dropped(const float* q, const float* k, const float* v, float* o, int64_t tokens,
                                             int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len,
                                             int64_t kv_cap, float scale, void* stream);
void mutant_fused_attn_flash_p_fp8(const float* q, const float* k, const float* v, float* o, int64_t tokens,
                                   int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap,
                                   float scale, void* stream);
void mutant_fused_qk_norm_rope_slot_off(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                                        const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache,
                                        int64_t tokens, int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap,
                                        bool neox, float eps, void* stream);
#endif

}  // namespace qgate::cuk
