// MoE routing and SiLU * mul (kernels/fused.inc).
// Router: one block of kRouteThreads per row (experts <= kRouteMaxExperts, top_k <=
// kRouteMaxK): m = the largest logit; e_j = expf(l_j - m) (2 ULP) in parallel; their sum in
// expert order by one thread (depth E - 1); p_j = e_j / sum (correctly rounded); top-k by
// one thread scanning experts upward with a strict > (equal probabilities: the lower index
// first); the chosen p summed in slot order; weights p / that sum.
// SiLU * mul: y = g / (1 + expf(-g)) * u (expf 2 ULP, the rest correctly rounded); where
// expf(-g) overflows (g < -88.7) the IEEE division gives the signed zero.
#include "kernels/cuda/fused_common.cuh"

namespace qgate::cuk {
namespace {

__global__ void __launch_bounds__(kRouteThreads)
    moe_route_kernel(const float* __restrict__ logits, float* __restrict__ weights, int32_t* __restrict__ ids,
                     int64_t experts, int64_t top_k) {
  __shared__ float p[kRouteMaxExperts];
  __shared__ float bcast;
  __shared__ unsigned taken[kRouteMaxExperts / 32];
  __shared__ int pick[kRouteMaxK];
  const int64_t row = blockIdx.x;
  const int E = int(experts), K = int(top_k), tid = int(threadIdx.x);
  const float* l = logits + row * experts;
  if (tid == 0) {
    float m = l[0];
    for (int j = 1; j < E; ++j) m = fmaxf(m, l[j]);
    bcast = m;
  }
  for (int j = tid; j < kRouteMaxExperts / 32; j += kRouteThreads) taken[j] = 0u;
  __syncthreads();
  const float m = bcast;
  for (int j = tid; j < E; j += kRouteThreads) p[j] = expf(l[j] - m);
  __syncthreads();
  if (tid == 0) {
    float sum = 0.0f;
    for (int j = 0; j < E; ++j) sum = sum + p[j];
    bcast = sum;
  }
  __syncthreads();
  const float sum = bcast;
  for (int j = tid; j < E; j += kRouteThreads) p[j] = p[j] / sum;
  __syncthreads();
  if (tid == 0) {
    float chosen = 0.0f;
    for (int s = 0; s < K; ++s) {
      int best = -1;
      float bp = 0.0f;
      for (int j = 0; j < E; ++j) {
        if (taken[j >> 5] & (1u << (j & 31))) continue;
        if (best < 0 || p[j] > bp) best = j, bp = p[j];
      }
      taken[best >> 5] |= 1u << (best & 31);
      pick[s] = best;
      ids[row * top_k + s] = best;
      chosen = chosen + bp;
    }
    for (int s = 0; s < K; ++s) weights[row * top_k + s] = p[pick[s]] / chosen;
  }
}

__global__ void silu_mul_kernel(const float* __restrict__ g, const float* __restrict__ u, float* __restrict__ y,
                                int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float gi = g[i];
    const float den = 1.0f + expf(-gi);
    y[i] = (gi / den) * u[i];
  }
}

}  // namespace

void fused_moe_route(const float* logits, float* weights, int32_t* ids, int64_t rows, int64_t experts, int64_t top_k,
                     void* stream) {
  moe_route_kernel<<<unsigned(rows), kRouteThreads, 0, static_cast<gpuStream_t>(stream)>>>(logits, weights, ids,
                                                                                          experts, top_k);
}

void fused_silu_mul(const float* g, const float* u, float* y, int64_t n, void* stream) {
  const int64_t blocks = (n + 255) / 256;
  silu_mul_kernel<<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, static_cast<gpuStream_t>(stream)>>>(g, u, y, n);
}

}  // namespace qgate::cuk
