// Residual add + RMSNorm, and per-head q/k RMSNorm + RoPE + KV-cache write (kernels/
// fused.inc). One block of kNormThreads per row / head vector: each thread sums
// ceil(n / kNormThreads) squares, then a log2(kNormThreads)-level tree (declared depth
// ceil(n / kNormThreads) + kNormLevels); mean = s / n, r = 1 / sqrtf(mean + eps) (two
// correctly rounded operations), y = (h * r) * w.
// q/k-norm + RoPE + KV: kernels/cuda/fused_qk_norm_rope.cuh.
#include "kernels/cuda/fused_common.cuh"
#include "kernels/cuda/fused_qk_norm_rope.cuh"

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

}  // namespace

void fused_add_rmsnorm(const float* x, const float* r, const float* w, float* y, float* h, int64_t rows, int64_t n,
                       float eps, void* stream) {
  add_rmsnorm_kernel<<<unsigned(rows), kNormThreads, 0, static_cast<gpuStream_t>(stream)>>>(x, r, w, y, h, n, eps);
}

void fused_qk_norm_rope(const float* q, const float* k, const float* v, const float* wq, const float* wk,
                        const int32_t* pos, const float* freq, float* oq, float* k_cache, float* v_cache, int64_t tokens,
                        int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_cap, bool neox, float eps, void* stream) {
  fused::launch_qk_norm_rope<false>(q, k, v, wq, wk, pos, freq, oq, k_cache, v_cache, tokens, n_head, n_head_kv, d, kv_cap,
                                    neox, eps, stream);
}

}  // namespace qgate::cuk
