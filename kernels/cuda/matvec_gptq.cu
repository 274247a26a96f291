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

// W4A8 decode mat-vec. A block of T = kMatvecThreads threads takes kGqNT * C consecutive
// output columns: thread (kt, nt) = (tid / kGqNT, tid % kGqNT) reads C columns' qweight words
// (C = 8 at M = 1, 2 for up to 8 activation rows, whose accumulators take the registers)
// with 16-byte loads per k8 row (8-byte at C = 2; a warp reads whole row segments) and takes the
// 32-element chunks c = kt, kt + kGqKT, ... in order, with the GEMM's arithmetic per chunk:
//   isum = exact int8 dot of (q - zero) with the q8_1 codes;  acc += dx * (scale * isum)
// (computed as sum q x - zero * sum x, the same integer: the nibbles stay unsigned, and the
// chunk's activation codes are permuted once into the nibbles' order, shared by C columns);
// then the kGqKT partial sums of a column added in a fixed pairwise tree. Longest chain:
// ceil(k / 32 / kGqKT) accumulations + log2(kGqKT) tree levels + 6 (registry_cuda.cpp:
// gptq_matvec_depth).
inline constexpr int kGqKT = kGptqMatvecKThreads, kGqNT = kMatvecThreads / kGqKT;
template <int MR>
inline constexpr int kGqCols = MR == 1 ? 8 : 2;

// sm_90: <= 128 registers (the next chunk's 32 words in flight), 4 blocks an SM: at 32768
// columns the grid's 512 blocks are all resident at once.
template <int MR, bool Vec>
__global__ void __launch_bounds__(kMatvecThreads, QG_MIN_BLOCKS(4))
    matvec_gptq_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, float* __restrict__ y, int64_t n,
                       int64_t k, int m, int64_t ldy) {
  constexpr int T = kMatvecThreads, C = kGqCols<MR>, NV = C * MR;  // partial sums per thread
  static_assert(kGqNT * kGqKT == T && (kGqKT & (kGqKT - 1)) == 0 && kGqNT * C % 8 == 0, "a power of 2 along k");
  const GptqView v = gptq_view(w, n, k);
  const int tid = threadIdx.x, nt = tid % kGqNT, kt = tid / kGqNT;
  const int64_t col0 = (int64_t(blockIdx.x) * kGqNT + nt) * C;  // n % 8 == 0: all C or none
  const bool ok = v.ok && !v.g_idx && v.group % 32 == 0 && k % 32 == 0;
  float acc[C][MR];
#pragma unroll
  for (int j = 0; j < C; ++j)
#pragma unroll
    for (int i = 0; i < MR; ++i) acc[j][i] = ok ? 0.f : __int_as_float(0x7FC00000);
  const int64_t chunks = ok && col0 < n ? k / 32 : 0;
  // qweight rows 4c + i of chunk c: inputs 32c + 8i .. +7 (nibble l = input 8i + l); the next
  // chunk's words are loaded before this one's arithmetic (one chunk ahead)
  auto load = [&](int64_t c, uint32_t (&u)[4][C]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t* q = v.qweight + (4 * c + i) * n + col0;
      if constexpr (Vec && C % 4 == 0) {
#pragma unroll
        for (int h = 0; h < C / 4; ++h) {
          const uint4 q4 = reinterpret_cast<const uint4*>(q)[h];
          u[i][4 * h] = q4.x, u[i][4 * h + 1] = q4.y, u[i][4 * h + 2] = q4.z, u[i][4 * h + 3] = q4.w;
        }
      } else if constexpr (Vec && C == 2) {
        const uint2 q2 = *reinterpret_cast<const uint2*>(q);
        u[i][0] = q2.x, u[i][1] = q2.y;
      } else {
#pragma unroll
        for (int j = 0; j < C; ++j) u[i][j] = q[j];
      }
    }
  };
  uint32_t u[4][C], un[4][C];
  if (kt < chunks) load(kt, un);
  for (int64_t c = kt; c < chunks; c += kGqKT) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < C; ++j) u[i][j] = un[i][j];
    if (c + kGqKT < chunks) load(c + kGqKT, un);
    const int64_t g = 32 * c / v.group;
    const uint32_t zw = v.qzeros[g * (n / 8) + col0 / 8] >> (4 * (col0 % 8));  // C stored zeros
    const uint32_t* sp = reinterpret_cast<const uint32_t*>(v.scales + g * n + col0);  // 4-byte aligned
    uint32_t sw[C / 2];
#pragma unroll
    for (int i = 0; i < C / 2; ++i) sw[i] = sp[i];
#pragma unroll
    for (int mi = 0; mi < MR; ++mi) {
      if (mi >= m) continue;  // (not break: a loop with one exit is unrolled by every compiler)
      const uint8_t* xb = xq + (int64_t(mi) * (k / 32) + c) * 36;
      const float dx = qg_f16_bits_to_float((unsigned short)(*reinterpret_cast<const uint32_t*>(xb) & 0xFFFFu));
      const int* xr = reinterpret_cast<const int*>(xb + 4);
      // xv[2i] = inputs 8i, 8i+2, 8i+4, 8i+6 (the low nibbles of word i), xv[2i+1] the odd ones
      int xv[8], xsum = 0;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const uint32_t a = uint32_t(xr[2 * i]), b = uint32_t(xr[2 * i + 1]);
        xv[2 * i] = int(qg_byte_perm(a, b, 0x6420u));
        xv[2 * i + 1] = int(qg_byte_perm(a, b, 0x7531u));
        xsum = qg_dp4a(0x01010101, int(a), xsum);
        xsum = qg_dp4a(0x01010101, int(b), xsum);
      }
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const int z = int((zw >> (4 * j)) & 15u) + 1;
        int isum = -z * xsum;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          isum = qg_dp4a(int(u[i][j] & 0x0F0F0F0Fu), xv[2 * i], isum);
          isum = qg_dp4a(int((u[i][j] >> 4) & 0x0F0F0F0Fu), xv[2 * i + 1], isum);
        }
        const float ds = qg_f16_bits_to_float((unsigned short)((sw[j / 2] >> (16 * (j % 2))) & 0xFFFFu));
        acc[j][mi] += dx * (ds * float(isum));
      }
    }
  }
  // red[s][kt], s = (j MR + mi) kGqNT + nt: each column's kGqKT partials, added pairwise
  // (level h: p[t] += p[t + h], t < h) by one thread per (column, activation row).
  __shared__ float red[NV * kGqNT][kGqKT + 1];
#pragma unroll
  for (int j = 0; j < C; ++j)
#pragma unroll
    for (int i = 0; i < MR; ++i) red[(j * MR + i) * kGqNT + nt][kt] = acc[j][i];
  __syncthreads();
  for (int sidx = tid; sidx < NV * kGqNT; sidx += T) {
    float p[kGqKT];
#pragma unroll
    for (int t = 0; t < kGqKT; ++t) p[t] = red[sidx][t];
#pragma unroll
    for (int h = kGqKT / 2; h > 0; h /= 2)
#pragma unroll
      for (int t = 0; t < kGqKT / 2; ++t)
        if (t < h) p[t] += p[t + h];
    const int q = sidx / kGqNT, j = q / MR, mi = q % MR;
    const int64_t col = (int64_t(blockIdx.x) * kGqNT + sidx % kGqNT) * C + j;
    if (mi < m && col < n) y[mi * ldy + col] = p[0];
  }
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
  const auto s = static_cast<gpuStream_t>(stream);
  const auto grid = [n](int cols) { return unsigned((n + kGqNT * cols - 1) / (kGqNT * cols)); };
  // vector loads of qweight: the array starts 32 bytes into the container, its rows are
  // n % 8 == 0 words and a thread's columns start at a multiple of 8 (M = 1) or 2
  const bool vec = reinterpret_cast<uintptr_t>(w) % 16 == 0;
  if (m == 1 && vec) matvec_gptq_kernel<1, true><<<grid(kGqCols<1>), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy);
  else if (m == 1) matvec_gptq_kernel<1, false><<<grid(kGqCols<1>), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy);
  else if (vec)
    matvec_gptq_kernel<kMatvecRows, true><<<grid(kGqCols<kMatvecRows>), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy);
  else
    matvec_gptq_kernel<kMatvecRows, false><<<grid(kGqCols<kMatvecRows>), kMatvecThreads, 0, s>>>(w, xq, y, n, k, m, ldy);
}

}  // namespace qgate::cuk
