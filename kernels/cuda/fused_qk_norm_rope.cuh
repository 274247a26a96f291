// Per-head q/k RMSNorm + RoPE + KV-cache append (kernels/fused.inc), one block of
// kNormThreads per head vector (token t, head j of the n_head q heads then the n_head_kv k
// heads): the sum of squares as fused_norm.cu's rows, r = 1 / sqrtf(mean + eps).
// RoPE: theta_i = f32(pos[t]) * freq[i], freq[i] = powf(base, f32(-2i/d)) computed on the
// host as the CPU kernel does; pos read from device memory; sinf/cosf (2 ULP); the rotation
// a c - b s, a s + b c (3 roundings, or 2 where contracted). k rows and v rows go to cache
// row pos[t] of their head. kSlotOff = true is the planted defect (fused_mutants.cu): the
// rows go to slot (pos + 1) mod kv_cap.
#pragma once
#include "kernels/cuda/fused_common.cuh"

namespace qgate::cuk::fused {

template <bool kSlotOff>
__global__ void __launch_bounds__(kNormThreads)
    qk_norm_rope_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                        const float* __restrict__ wq, const float* __restrict__ wk, const int32_t* __restrict__ pos,
                        const float* __restrict__ freq, float* __restrict__ oq, float* __restrict__ kc,
                        float* __restrict__ vc, int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap, int neox,
                        float eps) {
  __shared__ float part[kNormThreads];
  const int64_t heads = n_head + n_head_kv;
  const int64_t row = blockIdx.x, t = row / heads, j = row % heads;
  const bool is_q = j < n_head;
  const int64_t hk = j - n_head;
  const int tid = int(threadIdx.x);
  const int32_t p = pos[t];
  if (p < 0 || p >= kv_cap) return;  // the launch checked; uniform across the block
  const float* src = is_q ? q + (t * n_head + j) * d : k + (t * n_head_kv + hk) * d;
  const float* wt = is_q ? wq : wk;
  float acc = 0.0f;
  for (int64_t i = tid; i < d; i += kNormThreads) acc = src[i] * src[i] + acc;
  const float s = block_sum<kNormThreads>(part, acc);
  const float mean = s / float(d);
  const float ir = 1.0f / sqrtf(mean + eps);
  const int64_t slot = kSlotOff ? (p + 1) % kv_cap : p;
  float* dst = is_q ? oq + (t * n_head + j) * d : kc + (hk * kv_cap + slot) * d;
  const int64_t half = d / 2;
  for (int64_t i = tid; i < half; i += kNormThreads) {
    const int64_t i0 = neox ? i : 2 * i, i1 = neox ? i + half : 2 * i + 1;
    const float a0 = (src[i0] * ir) * wt[i0], a1 = (src[i1] * ir) * wt[i1];
    const float theta = float(p) * freq[i];
    const float c = cosf(theta), sn = sinf(theta);
    dst[i0] = a0 * c - a1 * sn;
    dst[i1] = a0 * sn + a1 * c;
  }
  if (!is_q) {
    const float* vs = v + (t * n_head_kv + hk) * d;
    float* vd = vc + (hk * kv_cap + slot) * d;
    for (int64_t i = tid; i < d; i += kNormThreads) vd[i] = vs[i];
  }
}


template <bool kSlotOff>
void launch_qk_norm_rope(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                         const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache, int64_t tokens,
                         int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap, bool neox, float eps, void* stream) {
  qk_norm_rope_kernel<kSlotOff><<<unsigned(tokens * (n_head + n_head_kv)), kNormThreads, 0, static_cast<gpuStream_t>(stream)>>>(
      q, k, v, wq, wk, pos, freq, oq, k_cache, v_cache, n_head, n_head_kv, d, kv_cap, neox ? 1 : 0, eps);
}

}  // namespace qgate::cuk::fused
