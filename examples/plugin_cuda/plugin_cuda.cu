// An example plugin of ABI version 2 with CUDA kernels (docs/PLUGINS.md): qgate allocates the
// weight, the activations and the guarded, NaN-poisoned output on the device, hands their
// device pointers and its stream, synchronizes, and reads the output region back.
//
//   cuda_matvec_q8_0_f32                   correct: one thread per output, blocks in order
//   cuda_matvec_q8_0_f32_splitk_atomic     correct: K split over 4 grid rows whose partial sums
//                                          land in y by atomicAdd in any order (declared
//                                          non-deterministic)
//   wrong_cuda_matvec_q8_0_f32_crossed     codes of neighbouring lanes swapped (j ^ 1)
//   wrong_cuda_matvec_q8_0_f32_overrun     one element written past the output (into the guard)
//   wrong_cuda_matvec_q8_0_f32_splitk_skips_row  the split-K kernel never adds the last row
//   stale_cuda_matvec_q8_0_f32             the weights converted to f32 on the device on the
//                                          first call of a shape and reused whenever the
//                                          shape repeats: wrong once the data changes
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "plugin/qgate_plugin.h"

namespace {

constexpr int kThreads = 128, kSplits = 4;

__device__ float scale_at(const uint8_t* p) { return __half2float(__ushort_as_half((unsigned short)(p[0] | (p[1] << 8)))); }

// y[r][i] for rows i of outputs t = r * n + i; blocks [b0, b1) of K (all of them unless split).
__device__ float row_dot(const uint8_t* w, const float* x, int64_t k, int64_t i, int64_t r, int64_t b0, int64_t b1,
                         bool crossed) {
  const int64_t nb = k / 32;
  float acc = 0.0f;
  for (int64_t b = b0; b < b1; ++b) {
    const uint8_t* blk = w + (i * nb + b) * 34;
    const float* xb = x + r * k + b * 32;
    float s = 0.0f;
    for (int j = 0; j < 32; ++j) s += (float)(int8_t)blk[2 + (crossed ? j ^ 1 : j)] * xb[j];
    acc += scale_at(blk) * s;
  }
  return acc;
}

__global__ void matvec(const uint8_t* w, const float* x, float* y, int64_t n, int64_t k, int64_t m, bool crossed,
                       bool overrun) {
  const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (overrun && t == n * m) y[t] = 0.0f;  // the defect: one element past the output
  if (t >= n * m) return;
  const int64_t r = t / n, i = t % n;
  y[t] = row_dot(w, x, k, i, r, 0, k / 32, crossed);
}

__global__ void matvec_splitk(const uint8_t* w, const float* x, float* y, int64_t n, int64_t k, int64_t m, bool skip_last) {
  const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= n * m) return;
  const int64_t r = t / n, i = t % n, nb = k / 32;
  if (skip_last && i == n - 1) return;
  const int64_t b0 = nb * blockIdx.y / kSplits, b1 = nb * (blockIdx.y + 1) / kSplits;
  if (b1 > b0) atomicAdd(&y[t], row_dot(w, x, k, i, r, b0, b1, false));
}

__global__ void convert(const uint8_t* w, float* out, int64_t n, int64_t k) {
  const int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (e >= n * k) return;
  const int64_t i = e / k, c = e % k;
  const uint8_t* blk = w + (i * (k / 32) + c / 32) * 34;
  out[e] = scale_at(blk) * (float)(int8_t)blk[2 + c % 32];
}
__global__ void matvec_f32(const float* wf, const float* x, float* y, int64_t n, int64_t k, int64_t m) {
  const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (t >= n * m) return;
  const int64_t r = t / n, i = t % n;
  float acc = 0.0f;
  for (int64_t c = 0; c < k; ++c) acc += wf[i * k + c] * x[r * k + c];
  y[t] = acc;
}

int32_t fail(char* msg, size_t size, const char* what, cudaError_t e) {
  std::snprintf(msg, size, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

unsigned grid_for(int64_t items) { return (unsigned)((items + kThreads - 1) / kThreads); }

// user: 0 = correct, 1 = crossed lanes, 2 = one element written past the output.
int32_t launch_matvec(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t size) {
  if (c->k % 32) return std::snprintf(msg, size, "k is not a multiple of 32"), 1;
  cudaStream_t s = static_cast<cudaStream_t>(c->stream);
  const intptr_t v = reinterpret_cast<intptr_t>(user);
  matvec<<<grid_for(c->n * c->m + 1), kThreads, 0, s>>>(static_cast<const uint8_t*>(c->w.ptr),
                                                       static_cast<const float*>(c->x.ptr), static_cast<float*>(c->y.ptr),
                                                       c->n, c->k, c->m, v == 1, v == 2);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail(msg, size, "launch", e);
  return 0;
}

// user: 0 = correct, 1 = skips the last row.
int32_t launch_splitk(const void* user, const qgate_plugin_v2_call* c, char* msg, size_t size) {
  if (c->k % 32) return std::snprintf(msg, size, "k is not a multiple of 32"), 1;
  cudaStream_t s = static_cast<cudaStream_t>(c->stream);
  if (cudaError_t e = cudaMemsetAsync(c->y.ptr, 0, c->y.bytes, s); e != cudaSuccess) return fail(msg, size, "memset", e);
  matvec_splitk<<<dim3(grid_for(c->n * c->m), kSplits), kThreads, 0, s>>>(
      static_cast<const uint8_t*>(c->w.ptr), static_cast<const float*>(c->x.ptr), static_cast<float*>(c->y.ptr), c->n, c->k,
      c->m, user != nullptr);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail(msg, size, "launch", e);
  return 0;
}

float* g_cache = nullptr;  // the stale kernel's converted weights and the shape they were made for
int64_t g_n = 0, g_k = 0;
int32_t launch_stale(const void*, const qgate_plugin_v2_call* c, char* msg, size_t size) {
  if (c->k % 32) return std::snprintf(msg, size, "k is not a multiple of 32"), 1;
  cudaStream_t s = static_cast<cudaStream_t>(c->stream);
  if (!g_cache || g_n != c->n || g_k != c->k) {  // the bug: keyed by the shape, not the data
    cudaFree(g_cache);
    if (cudaError_t e = cudaMalloc(&g_cache, sizeof(float) * c->n * c->k); e != cudaSuccess) return fail(msg, size, "malloc", e);
    convert<<<grid_for(c->n * c->k), kThreads, 0, s>>>(static_cast<const uint8_t*>(c->w.ptr), g_cache, c->n, c->k);
    g_n = c->n, g_k = c->k;
  }
  matvec_f32<<<grid_for(c->n * c->m), kThreads, 0, s>>>(g_cache, static_cast<const float*>(c->x.ptr),
                                                       static_cast<float*>(c->y.ptr), c->n, c->k, c->m);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail(msg, size, "launch", e);
  return 0;
}

void* const kWrong = reinterpret_cast<void*>(1);
void* const kOverrun = reinterpret_cast<void*>(2);

// Depth: 32 products per block, the scale product, then one addition per block (split-K:
// a quarter of the blocks, then up to 4 atomic adds onto 0 in any order): ceil(k/32) + 36.
// The stale kernel sums k products in one chain: k + 1.
#define KERNEL(name, fn, user, det, b, c)                                                                       \
  qgate_plugin_v2_kernel{name, QGATE_OP_MATMUL, "q8_0", QGATE_BACKEND_CUDA, 1, kThreads, 32, 0,                 \
                         {QGATE_ACT_NONE, 23, {1, b, c}, QGATE_OUT_F32, 0}, det, fn, user, nullptr}
const qgate_plugin_v2_kernel kKernels[] = {
    KERNEL("cuda_matvec_q8_0_f32", launch_matvec, nullptr, 1, 32, 36),
    KERNEL("cuda_matvec_q8_0_f32_splitk_atomic", launch_splitk, nullptr, 0, 32, 40),
    KERNEL("wrong_cuda_matvec_q8_0_f32_crossed", launch_matvec, kWrong, 1, 32, 36),
    KERNEL("wrong_cuda_matvec_q8_0_f32_overrun", launch_matvec, kOverrun, 1, 32, 36),
    KERNEL("wrong_cuda_matvec_q8_0_f32_splitk_skips_row", launch_splitk, kWrong, 0, 32, 40),
    KERNEL("stale_cuda_matvec_q8_0_f32", launch_stale, nullptr, 1, 1, 1),
};
const qgate_plugin_v2_library kLibrary = {sizeof(qgate_plugin_v2_library), QGATE_PLUGIN_V2_ABI_VERSION, kKernels,
                                          sizeof kKernels / sizeof kKernels[0], nullptr, nullptr};

}  // namespace

extern "C" QGATE_PLUGIN_EXPORT const qgate_plugin_v2_library* qgate_plugin_v2_get(uint32_t host_abi_version,
                                                                                  const qgate_plugin_v2_config*, char* msg,
                                                                                  size_t size) {
  if (host_abi_version != QGATE_PLUGIN_V2_ABI_VERSION) {
    std::snprintf(msg, size, "built for ABI version 2");
    return nullptr;
  }
  return &kLibrary;
}
