// GPTQ / AutoRound int4 on the device (oracles/formats/gptq.hpp: qgate's container, auto_gptq
// v1 packing): the dequant kernels and the W4A8 decode mat-vec. Both read the container's
// header on the device (k, n, group size, flags) and find the arrays from it, so they launch
// like the block formats' kernels; a header that does not match the launch shape (or, for
// the mat-vec, has act-order g_idx or groups that are not a multiple of 32, which the
// registry's accepts already refuses) gives NaN outputs, never a read outside the container.
#include "kernels/cuda/dequant.cuh"
#undef QGATE_CUDA_DEQUANT_FORMAT  // both headers define the per-family expansions; unused here
#undef QGATE_CUDA_FORMAT
#include "kernels/cuda/matvec.cuh"

namespace qgate::cuk {

struct GptqView {
  const uint32_t* qweight;  // [k/8][n]
  const uint32_t* qzeros;   // [G][n/8], stored zero = true zero - 1
  const uint16_t* scales;   // [G][n], fp16 bits
  const int32_t* g_idx;     // [k] or nullptr
  int64_t group, groups;
  bool ok;
};

static QG_DEV GptqView gptq_view(const uint8_t* w, int64_t n, int64_t k) {
  GptqView v;
  const uint32_t* h = reinterpret_cast<const uint32_t*>(w);  // magic[8], k, n, group, flags
  v.group = h[4];
  v.ok = h[2] == uint32_t(k) && h[3] == uint32_t(n) && v.group > 0 && k % 8 == 0 && n % 8 == 0;
  v.groups = v.ok ? (k + v.group - 1) / v.group : 0;
  v.qweight = reinterpret_cast<const uint32_t*>(w + 32);
  v.qzeros = v.qweight + (k / 8) * n;
  v.scales = reinterpret_cast<const uint16_t*>(v.qzeros + v.groups * (n / 8));
  v.g_idx = (h[5] & 2u) ? reinterpret_cast<const int32_t*>(v.scales + v.groups * n) : nullptr;
  return v;
}

// w[col][kk] = scale[g][col] * (q - (stored zero + 1)): exact in double (11 x 5 bits).
template <int Out>
__global__ void dequant_gptq_kernel(const uint8_t* __restrict__ w, int64_t n, int64_t k, void* __restrict__ out) {
  const GptqView v = gptq_view(w, n, k);
  const int64_t total = n * k, stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t col = e / k, kk = e % k;
    double val = __longlong_as_double(0x7FF8000000000000ll);
    const int64_t g = !v.ok ? -1 : v.g_idx ? int64_t(v.g_idx[kk]) : kk / v.group;
    if (g >= 0 && g < v.groups) {
      const int q = int((v.qweight[(kk / 8) * n + col] >> (4 * (kk % 8))) & 15u);
      const int z = int((v.qzeros[g * (n / 8) + col / 8] >> (4 * (col % 8))) & 15u) + 1;
      val = f16_value(v.scales[g * n + col]) * double(q - z);
    }
    store_rounded<Out>(out, e, val);
  }
}

// W4A8 decode mat-vec: one thread per output column (consecutive threads read consecutive
// qweight words), every 32-element chunk in order, as the GEMM's arithmetic:
//   isum = exact int8 dot of (q - zero) with the q8_1 codes;  acc += dx * (scale * isum)
// so the longest chain is ceil(k/32) accumulations + 6 (registry: gptq_matvec_depth).
template <int Mut>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_gptq_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                       int64_t k, int m, int64_t ldy) {
  const GptqView v = gptq_view(w, n, k);
  const int64_t col = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= n) return;
  const bool ok = v.ok && !v.g_idx && v.group % 32 == 0 && k % 32 == 0;
  float acc[kMatvecRows];
#pragma unroll
  for (int i = 0; i < kMatvecRows; ++i) acc[i] = ok ? 0.f : __int_as_float(0x7FC00000);
  const int64_t chunks = ok ? k / 32 : 0;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t g = 32 * c / v.group;
    const uint32_t z = ((v.qzeros[g * (n / 8) + col / 8] >> (4 * (col % 8))) & 15u) + 1;
    const uint32_t bias = (0x80u - z) * 0x01010101u;  // q + 128 - z in 112..142: no carries
    const float ds = qg_f16_bits_to_float(v.scales[g * n + col]);
    int wq[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t u = v.qweight[(4 * c + i) * n + col];  // inputs 32c + 8i .. +7, nibble l = input 8i + l
      const uint32_t lo = u & 0x0F0F0F0Fu, hi = (u >> 4) & 0x0F0F0F0Fu;  // nibbles 0,2,4,6 / 1,3,5,7
      wq[2 * i] = int((qg_byte_perm(lo, hi, 0x5140u) + bias) ^ 0x80808080u);
      wq[2 * i + 1] = int((qg_byte_perm(lo, hi, 0x7362u) + bias) ^ 0x80808080u);
    }
#pragma unroll
    for (int mi = 0; mi < kMatvecRows; ++mi) {
      if (mi >= m) break;
      const uint8_t* xb = xq + (int64_t(mi) * chunks + c) * 36;
      const float dx = qg_f16_bits_to_float((unsigned short)(*reinterpret_cast<const uint32_t*>(xb) & 0xFFFFu));
      const int* xv = reinterpret_cast<const int*>(xb + 4);
      int isum = 0;
#pragma unroll
      for (int e = 0; e < 8; ++e) isum = qg_dp4a(wq[e], xv[e], isum);
      acc[mi] += dx * (ds * float(isum));
    }
  }
#pragma unroll
  for (int mi = 0; mi < kMatvecRows; ++mi)
    if (mi < m) y[mi * ldy + col] = acc[mi];
}

void dequant_gptq_int4(const uint8_t* w, int64_t n, int64_t k, void* out, OutType o, const IqTables&, void* stream) {
  const int64_t total = n * k;
  constexpr int threads = 256;
  const unsigned blocks = unsigned(std::min<int64_t>((total + threads - 1) / threads, int64_t(1) << 20));
  if (blocks == 0) return;
  auto s = static_cast<gpuStream_t>(stream);
  if (o == OutType::f32) dequant_gptq_kernel<0><<<blocks, threads, 0, s>>>(w, n, k, out);
  else if (o == OutType::f16) dequant_gptq_kernel<1><<<blocks, threads, 0, s>>>(w, n, k, out);
  else dequant_gptq_kernel<2><<<blocks, threads, 0, s>>>(w, n, k, out);
}

void matvec_gptq_int4(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy,
                      const IqTables&, void* stream) {
  if (n <= 0 || m <= 0) return;
  matvec_gptq_kernel<kMutNone><<<unsigned((n + kMatvecThreads - 1) / kMatvecThreads), kMatvecThreads, 0,
                                 static_cast<gpuStream_t>(stream)>>>(w, xq, y, n, k, m, ldy);
}

}  // namespace qgate::cuk
