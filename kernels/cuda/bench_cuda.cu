// Device side of the CUDA benchmarks (bench_cuda.hpp): the byte fill, the read stream, the
// int8 tile-product loop of the GEMM ceiling, the f16 conversion for cuBLAS, event timing.
#include <algorithm>
#include <vector>

#include "kernels/cuda/bench_cuda.hpp"
#include "backends/cuda/vendor.cuh"

namespace qgate::cuk::bench {
namespace {

__global__ void fill_kernel(uint32_t* p, size_t words, uint32_t seed) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
    uint32_t h = uint32_t(i) * 0x9E3779B1u ^ seed ^ uint32_t(i >> 32) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    p[i] = h;
  }
}

// 16-byte loads; the XOR of everything is stored only if it equals a value it cannot
// know in advance, so the loads cannot be removed.
__global__ void read_kernel(const uint4* __restrict__ p, size_t n, unsigned* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345679u) *sink = acc;
}

__global__ void mma_kernel(int iters, int* sink) {
  const int lane = qg_group_lane();
  int a[4] = {lane, lane * 3, lane * 5, lane * 7}, b[2] = {lane * 11, lane * 13};
  int d[4][4];
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) d[c][e] = c + e;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c) qg_mma_s8_16x8x32(d[c], a, b, d[c]);
  }
  int s = 0;
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) s ^= d[c][e];
  if (s == 0x7FFFFFFE) *sink = s;
}

// f16 bits with the exponent's top bit cleared: finite values of magnitude below 1.
__global__ void fill_f16_kernel(uint16_t* p, size_t n, uint32_t seed) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t h = uint32_t(i) * 0x9E3779B1u ^ seed;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 13;
    p[i] = uint16_t(h & 0xBBFFu);
  }
}

__global__ void to_f16_kernel(const float* x, uint16_t* y, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = qg_float_to_f16_bits(x[i]);
}

// One thread holding the stream for about `cycles` SM clocks (clock64 exists in HIP too).
__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

unsigned grid_for(size_t items, int threads) {
  return unsigned(std::min<size_t>((items + threads - 1) / threads, size_t(1) << 16));
}

}  // namespace

void fill_bytes(void* p, size_t bytes, uint32_t seed, void* stream) {
  const size_t words = bytes / 4;
  fill_kernel<<<grid_for(words, 256), 256, 0, static_cast<gpuStream_t>(stream)>>>(static_cast<uint32_t*>(p), words, seed);
}

void read_stream(const void* p, size_t bytes, unsigned* sink, void* stream) {
  read_kernel<<<132 * 16, 512, 0, static_cast<gpuStream_t>(stream)>>>(static_cast<const uint4*>(p), bytes / 16, sink);
}

void mma_loop(int blocks, int threads, int iters, int* sink, void* stream) {
  mma_kernel<<<blocks, threads, 0, static_cast<gpuStream_t>(stream)>>>(iters, sink);
}

void fill_f16(uint16_t* p, size_t n, uint32_t seed, void* stream) {
  fill_f16_kernel<<<grid_for(n, 256), 256, 0, static_cast<gpuStream_t>(stream)>>>(p, n, seed);
}

void f32_to_f16(const float* x, uint16_t* y, int64_t n, void* stream) {
  to_f16_kernel<<<grid_for(size_t(n), 256), 256, 0, static_cast<gpuStream_t>(stream)>>>(x, y, n);
}

std::string time_each(const std::function<void(int)>& launch, int reps, Timing& t, void* stream) {
  const gpuStream_t s = static_cast<gpuStream_t>(stream);
  gpuEvent_t a, b;
  if (gpuEventCreate(&a) != gpuSuccess || gpuEventCreate(&b) != gpuSuccess) return "cudaEventCreate failed";
  std::vector<double> ms;
  std::string err;
  for (int i = 0; i <= reps && err.empty(); ++i) {
    // The stream is kept busy (about 50 us at 2 GHz) while the start event, the launch and
    // the stop event are queued behind it, so the interval is the kernel's time on the
    // device: without it, the host's time to submit the launch (several microseconds,
    // nearly a tenth of a DRAM-bound mat-vec) fell between the two events.
    spin_kernel<<<1, 1, 0, s>>>(100000);
    (void)gpuEventRecord(a, s);  // an error here surfaces at the synchronize below
    launch(i);
    (void)gpuEventRecord(b, s);
    if (gpuError_t e = gpuEventSynchronize(b); e != gpuSuccess) {
      err = std::string("kernel: ") + gpuGetErrorName(e) + ": " + gpuGetErrorString(e);
      break;
    }
    if (gpuError_t e = gpuGetLastError(); e != gpuSuccess) {
      err = std::string("launch: ") + gpuGetErrorName(e) + ": " + gpuGetErrorString(e);
      break;
    }
    float f = 0;
    if (gpuError_t e = gpuEventElapsedTime(&f, a, b); e != gpuSuccess) {
      err = std::string("event timing: ") + gpuGetErrorName(e) + ": " + gpuGetErrorString(e);
      break;
    }
    if (i > 0) ms.push_back(f);
  }
  (void)gpuEventDestroy(a);
  (void)gpuEventDestroy(b);
  if (!err.empty()) return err;
  std::sort(ms.begin(), ms.end());
  t.samples = int(ms.size());
  t.median_ms = ms[ms.size() / 2];
  t.min_ms = ms.front();
  return {};
}

}  // namespace qgate::cuk::bench
