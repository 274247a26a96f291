// Decode mat-vec on f32 activations for the float weight formats of kernels.inc
// (QGATE_CUDA_FLOAT_MATVEC: fp8_e4m3, fp8_e5m2): y[r][row] = sum_k W[row][k] * x[r][k] for
// r < m <= kMatvecRows. These formats have no integer codes to feed an int8 dot product, so
// the weight is widened instead: one thread block of kMatvecThreads threads per weight row,
// thread tid takes the row's 32-element blocks c = tid, tid + T, ... in order, and per
// element
//   w = scale * fp8(q)        (__fmul_rn: one rounding; fp8(q) itself is exact in f32)
//   acc[r] = fma(w, x[r], acc[r])   (__fmaf_rn: one rounding)
// then the T partial sums meet in the mat-vec's fixed tree (matvec.cuh
// tree_sum_rows: log2 T levels, valid for any hardware SIMD width). Longest rounding chain
// of a term (registry_cuda.cpp's float_matvec_depth): 32 * ceil(k / 32 / T) accumulations
// + 1 (w) + log2 T.
#include "kernels/cuda/matvec.cuh"  // tree_sum_rows
#undef QGATE_CUDA_DEQUANT_FORMAT     // matvec.cuh's per-family expansions; unused here
#undef QGATE_CUDA_FORMAT

namespace qgate::cuk {

template <class F>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_float_kernel(const uint8_t* __restrict__ w, const float* __restrict__ x, float* __restrict__ y,
                        int64_t k, int m, int64_t ldy) {
  static_assert(F::FLOAT && F::QK == 32 && F::BYTES == 36, "fp8: {f32 scale; 32 codes}");
  const int64_t row = blockIdx.x;
  const int tid = threadIdx.x;
  const int64_t blocks = k / 32;
  const uint8_t* wrow = w + row * blocks * F::BYTES;
  float acc[kMatvecRows];
#pragma unroll
  for (int r = 0; r < kMatvecRows; ++r) acc[r] = 0.f;
  for (int64_t c = tid; c < blocks; c += blockDim.x) {
    // The block as 9 words (36 bytes, so every block starts 4-byte aligned), the
    // activations as float4 (a 32-element run starts 128-byte aligned: k % 32 == 0).
    const uint32_t* bw = reinterpret_cast<const uint32_t*>(wrow + c * F::BYTES);
    const float s = __uint_as_float(bw[0]);
#pragma unroll 2
    for (int j = 0; j < 8; ++j) {
      const uint32_t q = bw[1 + j];
      float xv[kMatvecRows][4];
#pragma unroll
      for (int r = 0; r < kMatvecRows; ++r)
        if (r < m) {
          const float4 v = reinterpret_cast<const float4*>(x + r * k + c * 32)[j];
          xv[r][0] = v.x, xv[r][1] = v.y, xv[r][2] = v.z, xv[r][3] = v.w;
        }
#pragma unroll
      for (int l = 0; l < 4; ++l) {  // element 4j + l, in order
        const float wv = __fmul_rn(s, F::code_value((q >> (8 * l)) & 0xFF));
#pragma unroll
        for (int r = 0; r < kMatvecRows; ++r)
          if (r < m) acc[r] = __fmaf_rn(wv, xv[r][l], acc[r]);
      }
    }
  }
  __shared__ float red[kMatvecRows][kMatvecThreads];
  tree_sum_rows(red, acc, tid);
  if (tid < m) y[tid * ldy + row] = red[tid][0];
}

template <class F>
void launch_matvec_float(const uint8_t* w, const uint8_t* x, float* y, int64_t n, int64_t k, int m, int64_t ldy,
                         void* stream) {
  if (n <= 0 || m <= 0) return;
  matvec_float_kernel<F><<<unsigned(n), kMatvecThreads, 0, static_cast<gpuStream_t>(stream)>>>(
      w, reinterpret_cast<const float*>(x), y, k, m, ldy);
}

#define QGATE_CUDA_FLOAT_MATVEC(fmt)                                                                          \
  void matvec_f32_##fmt(const uint8_t* w, const uint8_t* x, float* y, int64_t n, int64_t k, int m, int64_t ldy, \
                        const IqTables&, void* stream) {                                                        \
    launch_matvec_float<Fmt_##fmt>(w, x, y, n, k, m, ldy, stream);                                              \
  }
#include "kernels/cuda/kernels.inc"

}  // namespace qgate::cuk
