// Residual add + RMSNorm, and per-head q/k RMSNorm + RoPE + KV-cache write (kernels/
// fused.inc). One block of kNormThreads per row / head vector: each thread sums
// ceil(n / kNormThreads) squares, then a log2(kNormThreads)-level tree (declared depth
// ceil(n / kNormThreads) + kNormLevels); mean = s / n, r = 1 / sqrtf(mean + eps) (two
// correctly rounded operations), y = (h * r) * w.
// RoPE: theta_i = f32(pos[t]) * freq[i], freq[i] = powf(base, f32(-2i/d)) computed on the
// host as the CPU kernel does; pos read from device memory; sinf/cosf (2 ULP); the rotation
// a c - b s, a s + b c (3 roundings, or 2 where contracted).
#include "kernels/cuda/fused_common.cuh"

namespace qgate::cuk {
namespace {

using fused::block_sum;

__global__ void __launch_bounds__(kNormThreads)
    add_rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ r, const float* __restrict__ w,
                       float* __restrict__ y, float* __restrict__ h, int64_t n, float eps) {
  __shared__ float part[kNormThreads];
  const int64_t base = int64_t(blockIdx.x) * n;
  const int tid = int(threadIdx.x);
  float acc = 0.0f;
  for (int64_t i = tid; i < n; i += kNormThreads) {
    const float hi = x[base + i] + r[base + i];
    h[base + i] = hi;
    acc = hi * hi + acc;
  }
  const float s = block_sum<kNormThreads>(part, acc);
  const float mean = s / float(n);
  const float ir = 1.0f / sqrtf(mean + eps);
  for (int64_t i = tid; i < n; i += kNormThreads) {
    const float hi = x[base + i] + r[base + i];  // the value written above, recomputed exactly
    y[base + i] = (hi * ir) * w[i];
  }
}

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
  float* dst = is_q ? oq + (t * n_head + j) * d : kc + (hk * kv_cap + p) * d;
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
    float* vd = vc + (hk * kv_cap + p) * d;
    for (int64_t i = tid; i < d; i += kNormThreads) vd[i] = vs[i];
  }
}

}  // namespace

void fused_add_rmsnorm(const float* x, const float* r, const float* w, float* y, float* h, int64_t rows, int64_t n,
                       float eps, void* stream) {
  add_rmsnorm_kernel<<<unsigned(rows), kNormThreads, 0, static_cast<gpuStream_t>(stream)>>>(x, r, w, y, h, n, eps);
}

void fused_qk_norm_rope(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                        const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache, int64_t tokens,
                        int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap, bool neox, float eps, void* stream) {
  qk_norm_rope_kernel<<<unsigned(tokens * (n_head + n_head_kv)), kNormThreads, 0, static_cast<gpuStream_t>(stream)>>>(
      q, k, v, wq, wk, pos, freq, oq, k_cache, v_cache, n_head, n_head_kv, d, kv_cap, neox ? 1 : 0, eps);
}

}  // namespace qgate::cuk
