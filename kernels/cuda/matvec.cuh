// Decode mat-vec with quantized activations: y[r][row] = sum_k W[row][k] * x'[r][k], for
// r < m <= 8 activation rows. One thread block per weight row; each thread takes the row's
// 32-element chunks c = tid, tid + T, ...: the chunk's weight codes packed as int8, exact
// integer dot products (qg_dp4a) per sub-block against the activation codes, then in f32
//   inner = sum_s (dsub_s * isum_s - msub_s * qsum_s);  acc[r] += d_x * inner
// and the T partial sums are added in a fixed shared-memory tree (deterministic, and
// valid for any thread count and any hardware SIMD width).
// Longest rounding chain of a term (registry_cuda.cpp declares it as depth(k)):
//   ceil(k / 32 / T) accumulations + log2(T) tree levels + (2 SPC + 2 <= 6) inside a chunk.
#pragma once
#include "kernels/cuda/formats.cuh"
#include "kernels/cuda/launchers.hpp"

namespace qgate::cuk {

inline constexpr int kAct_q8_1 = 0, kAct_q8_K = 1;
inline constexpr int kMutNone = 0, kMutCrossedLanes = 1, kMutRowsPastM = 2;

// One weight row (wrow) against m activation rows: y[r * ldy] = the row's dot product with
// activation row r (r < m). Called by a whole thread block (the reduction is block-wide).
template <class F, int Act, int Mut>
__device__ __forceinline__ void matvec_row(const uint8_t* __restrict__ wrow, const uint8_t* __restrict__ xq,
                                           float* __restrict__ y, int64_t k, int m, int64_t ldy, const IqTables& t) {
  constexpr int CPB = F::QK / 32;                  // chunks per weight block
  constexpr int L = F::SUB < 32 ? F::SUB : 32;     // elements of one sub-block in a chunk
  constexpr int SPC = 32 / L;                      // sub-blocks per chunk
  constexpr int XBYTES = Act == kAct_q8_1 ? 36 : 292;
  const int tid = threadIdx.x;
  const int64_t chunks = k / 32;

  float acc[kMatvecRows];
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) acc[r] = 0.f;

  for (int64_t c = tid; c < chunks; c += blockDim.x) {
    const uint8_t* blk = wrow + (c / CPB) * F::BYTES;
    const int base = int(c % CPB) * 32;
    int wq[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      uint32_t p = 0;
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        int i = base + 4 * e + l;
        if constexpr (Mut == kMutCrossedLanes) i ^= 16;  // planted: elements 0..15 read 16..31
        p |= uint32_t(uint8_t(int8_t(F::code(blk, i, t)))) << (8 * l);
      }
      wq[e] = int(p);
    }
    float ds[SPC], ms[SPC];
#pragma unroll
    for (int s = 0; s < SPC; ++s) {
      const int j = (base + s * L) / F::SUB;
      ds[s] = float(F::dsub(blk, j));  // exact (formats.cuh)
      ms[s] = F::MIN ? float(F::msub(blk, j)) : 0.f;
    }
#pragma unroll
    for (int r = 0; r < kMatvecRows; ++r) {
      if (r >= m) break;
      const uint8_t* xb;
      float dx;
      if constexpr (Act == kAct_q8_1) {
        xb = xq + (int64_t(r) * chunks + c) * XBYTES;
        dx = float(rf16(xb, 0));
        xb += 4;
      } else {
        xb = xq + (int64_t(r) * (k / 256) + c / 8) * XBYTES;
        dx = __uint_as_float(ru32(xb, 0));
        xb += 4 + 32 * (c % 8);
      }
      const int* xv = reinterpret_cast<const int*>(xb);  // 4-byte aligned: 36 and 292 are multiples of 4
      float inner = 0.f;
#pragma unroll
      for (int s = 0; s < SPC; ++s) {
        int isum = 0, qsum = 0;
#pragma unroll
        for (int e = s * L / 4; e < (s + 1) * L / 4; ++e) {
          const int xe = xv[e];
          isum = qg_dp4a(wq[e], xe, isum);
          if constexpr (F::MIN) qsum = qg_dp4a(0x01010101, xe, qsum);
        }
        if constexpr (F::MIN) inner += ds[s] * float(isum) - ms[s] * float(qsum);
        else inner += ds[s] * float(isum);
      }
      acc[r] += dx * inner;
    }
  }

  __shared__ float red[kMatvecRows][kMatvecThreads];
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) red[r][tid] = acc[r];
  __syncthreads();
  for (int h = kMatvecThreads / 2; h > 0; h >>= 1) {
    if (tid < h)
#pragma unroll
      for (int r = 0; r < kMatvecRows; ++r) red[r][tid] += red[r][tid + h];
    __syncthreads();
  }
  if (tid == 0) {
    const int rows = Mut == kMutRowsPastM ? kMatvecRows : m;  // planted: every accumulator row written
    for (int r = 0; r < rows; ++r) y[r * ldy] = red[r][0];
  }
}

template <class F, int Act, int Mut>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                  int64_t k, int m, int64_t ldy, IqTables t) {
  const int64_t row = blockIdx.x;
  matvec_row<F, Act, Mut>(w + row * (k / F::QK) * F::BYTES, xq, y + row, k, m, ldy, t);
}

template <class F, int Act, int Mut>
void launch_matvec(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy,
                   const IqTables& t, void* stream) {
  if (n <= 0 || m <= 0) return;
  matvec_kernel<F, Act, Mut><<<unsigned(n), kMatvecThreads, 0, static_cast<gpuStream_t>(stream)>>>(w, xq, y, n, k, m,
                                                                                                   ldy, t);
}

}  // namespace qgate::cuk

#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family)
#define QGATE_CUDA_FORMAT(fmt, act, family) QGATE_CUDA_IF_##family(                                          \
  void matvec_##fmt(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy, \
                    const IqTables& t, void* stream) {                                                       \
    launch_matvec<Fmt_##fmt, kAct_##act, kMutNone>(w, xq, y, n, k, m, ldy, t, stream);                      \
  })
