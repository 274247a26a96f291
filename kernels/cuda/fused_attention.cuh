// Causal GQA attention (kernels/fused.inc), one block of kAttnThreads per query row
// (t, h): query t sits at position kv_len - tokens + t; q head h reads kv head
// h / (n_head / n_head_kv); thread tid owns head dims tid + kAttnThreads * c (d <=
// kAttnMaxD). Scores: a sequential multiply-add chain along d (depth d), then * scale.
//   Eager: every score into the scratch row (P materialized in f32), m = their max (exact),
//     e_j = expf(s_j - m) (2 ULP), l = their sum (a per-thread chain, then a fixed tree:
//     each e_j meets at most n - 1 roundings), P_j = e_j / l (correctly rounded), then
//     O_i = sum_j P_j V_ji along j in order.
//   Flash: online softmax over tiles of kAttnTile keys, as the CPU kernel: per tile the
//     scores into shared memory, the new max mt, the rescale of l and the accumulators by
//     expf(m - mt) (0 on the first tile), p_j = expf(s_j - mt) rounded to P's type, then in
//     key order l += p_j, acc_i += p_j V_ji; O_i = acc_i / l. Every thread keeps its own l,
//     computed from the same values in the same order. D names a planted defect
//     (fused_mutants.cu): rescale_dropped (earlier tiles keep their stale scale), p_fp8 (P
//     rounded to fp8 e4m3 whatever P declares); FlashDefect::none is the production kernel.
#pragma once
#include "kernels/cuda/fused_common.cuh"

namespace qgate::cuk::fused {

inline constexpr int kAttnPer = kAttnMaxD / kAttnThreads;

__device__ __forceinline__ float attn_score(const float* __restrict__ q, const float* __restrict__ k, int64_t d,
                                            float scale) {
  float acc = 0.0f;
  for (int64_t i = 0; i < d; ++i) acc = q[i] * k[i] + acc;
  return acc * scale;
}

enum class FlashDefect { none, rescale_dropped, p_fp8 };

// p in [0, 1] rounded to fp8 e4m3 (3 mantissa bits, subnormal below 2^-6): the p_fp8 defect.
__device__ __forceinline__ float round_to_e4m3(float p) {
  if (p == 0.0f) return p;
  int e;
  frexpf(p, &e);  // p = f 2^e, f in [0.5, 1)
  const float step = ldexpf(1.0f, (e > -5 ? e : -5) - 4);
  return fminf(rintf(p / step) * step, 448.0f);
}

template <AttnP P, FlashDefect D>
__device__ __forceinline__ float round_p(float p) {
  if constexpr (D == FlashDefect::p_fp8) return round_to_e4m3(p);
  else if constexpr (P == AttnP::f16) return round_to_f16(p);
  else if constexpr (P == AttnP::bf16) return round_to_bf16(p);
  else return p;
}

template <AttnP P, FlashDefect D>
__global__ void __launch_bounds__(kAttnThreads)
    attn_flash_kernel(const float* __restrict__ q, const float* __restrict__ kc, const float* __restrict__ vc,
                      float* __restrict__ o, int64_t tokens, int64_t n_head, int64_t n_head_kv, int64_t d,
                      int64_t kv_len, int64_t kv_cap, float scale) {
  __shared__ float s_t[kAttnTile];
  __shared__ float p_t[kAttnTile];
  const int64_t row = blockIdx.x, t = row / n_head, h = row % n_head;
  const int64_t kvh = h / (n_head / n_head_kv), n = kv_len - tokens + t + 1;
  const int tid = int(threadIdx.x);
  const float* qr = q + row * d;
  const float* kr = kc + kvh * kv_cap * d;
  const float* vr = vc + kvh * kv_cap * d;
  float acc[kAttnPer];
#pragma unroll
  for (int c = 0; c < kAttnPer; ++c) acc[c] = 0.0f;
  float m = neg_inf(), l = 0.0f;
  for (int64_t j0 = 0; j0 < n; j0 += kAttnTile) {
    const int nt = int(n - j0 < kAttnTile ? n - j0 : kAttnTile);
    for (int j = tid; j < nt; j += kAttnThreads) s_t[j] = attn_score(qr, kr + (j0 + j) * d, d, scale);
    __syncthreads();
    float mt = m;
    for (int j = 0; j < nt; ++j) mt = fmaxf(mt, s_t[j]);
    if constexpr (D != FlashDefect::rescale_dropped) {
      const float alpha = expf(m - mt);  // 0 on the first tile (m = -inf)
      l = l * alpha;
#pragma unroll
      for (int c = 0; c < kAttnPer; ++c) acc[c] = acc[c] * alpha;
    }
    for (int j = tid; j < nt; j += kAttnThreads) p_t[j] = round_p<P, D>(expf(s_t[j] - mt));
    __syncthreads();
    for (int j = 0; j < nt; ++j) {
      const float pj = p_t[j];
      l = l + pj;
      const float* v = vr + (j0 + j) * d;
#pragma unroll
      for (int c = 0; c < kAttnPer; ++c) {
        const int64_t i = tid + int64_t(c) * kAttnThreads;
        if (i < d) acc[c] = pj * v[i] + acc[c];
      }
    }
    m = mt;
    __syncthreads();  // s_t and p_t are rewritten by the next tile
  }
#pragma unroll
  for (int c = 0; c < kAttnPer; ++c) {
    const int64_t i = tid + int64_t(c) * kAttnThreads;
    if (i < d) o[row * d + i] = acc[c] / l;
  }
}

template <AttnP P, FlashDefect D = FlashDefect::none>
void launch_attn_flash(const float* q, const float* k, const float* v, float* o, int64_t tokens, int64_t n_head,
                       int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale, void* stream) {
  attn_flash_kernel<P, D><<<unsigned(tokens * n_head), kAttnThreads, 0, static_cast<gpuStream_t>(stream)>>>(
      q, k, v, o, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale);
}

}  // namespace qgate::cuk::fused
