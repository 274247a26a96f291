// The attention entry points of kernels/fused.inc; the kernels and their declared
// arithmetic are in fused_attention.cuh.
#include "kernels/cuda/fused_attention.cuh"

namespace qgate::cuk {
namespace fused {
namespace {

__global__ void __launch_bounds__(kAttnThreads)
    attn_eager_kernel(const float* __restrict__ q, const float* __restrict__ kc, const float* __restrict__ vc,
                      float* __restrict__ o, float* __restrict__ scratch, int64_t tokens, int64_t n_head,
                      int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale) {
  __shared__ float part[kAttnThreads];
  const int64_t row = blockIdx.x, t = row / n_head, h = row % n_head;
  const int64_t kvh = h / (n_head / n_head_kv), n = kv_len - tokens + t + 1;
  const int tid = int(threadIdx.x);
  const float* qr = q + row * d;
  const float* kr = kc + kvh * kv_cap * d;
  const float* vr = vc + kvh * kv_cap * d;
  float* sc = scratch + row * kv_len;
  float mx = neg_inf();
  for (int64_t j = tid; j < n; j += kAttnThreads) {
    const float s = attn_score(qr, kr + j * d, d, scale);
    sc[j] = s;
    mx = fmaxf(mx, s);
  }
  const float m = block_max<kAttnThreads>(part, mx);
  float acc = 0.0f;
  for (int64_t j = tid; j < n; j += kAttnThreads) {
    const float e = expf(sc[j] - m);
    sc[j] = e;
    acc = acc + e;
  }
  const float l = block_sum<kAttnThreads>(part, acc);
  for (int64_t j = tid; j < n; j += kAttnThreads) sc[j] = sc[j] / l;
  __syncthreads();  // P complete (global writes of the block visible after the barrier)
#pragma unroll
  for (int c = 0; c < kAttnPer; ++c) {
    const int64_t i = tid + int64_t(c) * kAttnThreads;
    if (i >= d) break;
    float a = 0.0f;
    for (int64_t j = 0; j < n; ++j) a = sc[j] * vr[j * d + i] + a;
    o[row * d + i] = a;
  }
}

}  // namespace
}  // namespace fused

void fused_attn_eager(const float* q, const float* k, const float* v, float* o, float* scratch, int64_t tokens,
                      int64_t n_head, int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale,
                      void* stream) {
  fused::attn_eager_kernel<<<unsigned(tokens * n_head), kAttnThreads, 0, static_cast<gpuStream_t>(stream)>>>(
      q, k, v, o, scratch, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale);
}

void fused_attn_flash(AttnP p, const float* q, const float* k, const float* v, float* o, int64_t tokens, int64_t n_head,
                      int64_t n_head_kv, int64_t d, int64_t kv_len, int64_t kv_cap, float scale, void* stream) {
  switch (p) {
    case AttnP::f32:
      return fused::launch_attn_flash<AttnP::f32>(q, k, v, o, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale, stream);
    case AttnP::f16:
      return fused::launch_attn_flash<AttnP::f16>(q, k, v, o, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale, stream);
    case AttnP::bf16:
      return fused::launch_attn_flash<AttnP::bf16>(q, k, v, o, tokens, n_head, n_head_kv, d, kv_len, kv_cap, scale, stream);
  }
}

}  // namespace qgate::cuk
