// Indexed MoE (ggml mul_mat_id) with the expert ids read from a device tensor: no host
// round trip between the router and the experts.
//   decode: one thread block per (weight row j, slot i = t*top_k + s): the block reads
//     e = ids[i] and runs the mat-vec row body (matvec.cuh) on row j of expert e against
//     token t; an id outside 0..experts-1 writes NaN (never an out-of-range read).
//   prefill: one pass lists each expert's slots in ascending order (deterministic, on the
//     device), then the GEMM (gemm.cuh) runs per expert (grid z) over its listed slots,
//     gathering activation rows t and scattering output rows t*top_k + s.
// Both keep the arithmetic, and so the declared precision, of their dense kernels.
#pragma once
#include "kernels/cuda/gemm.cuh"
#include "kernels/cuda/matvec.cuh"

namespace qgate::cuk {

inline constexpr int kMoeMutNone = 0, kMoeMutWrongSlot = 1;

template <class F, int Act, int Mut>
__global__ void __launch_bounds__(kMatvecThreads)
    moe_matvec_kernel(const uint8_t* __restrict__ w, const uint8_t* __restrict__ xq, const int32_t* __restrict__ ids,
                      float* __restrict__ y, int64_t n, int64_t k, int top_k, int experts, IqTables t) {
  constexpr int XBYTES = Act == kAct_q8_1 ? block::q8_1::bytes : block::q8_K::bytes;
  constexpr int XQK = Act == kAct_q8_1 ? block::q8_1::elems : block::q8_K::elems;
  const int64_t j = blockIdx.x, i = blockIdx.y, tok = i / top_k;
  // planted: the id of the token's next slot (an off-by-one in the slot index)
  const int64_t slot = Mut == kMoeMutWrongSlot ? tok * top_k + (i % top_k + 1) % top_k : i;
  const int e = ids[slot];
  if (e < 0 || e >= experts) {
    if (threadIdx.x == 0) y[i * n + j] = __int_as_float(0x7FC00000);
    return;
  }
  const uint8_t* wrow = w + (int64_t(e) * n + j) * (k / F::QK) * F::BYTES;
  matvec_row<F, Act, kMutNone>(wrow, xq + tok * (k / XQK) * XBYTES, y + i * n + j, k, 1, 0, t);
}

template <class F, int Act, int Mut>
void launch_moe_matvec(const uint8_t* w, const uint8_t* xq, const int32_t* ids, float* y, int64_t n, int64_t k, int m,
                       int top_k, int experts, const IqTables& t, void* stream) {
  if (n <= 0 || m <= 0) return;
  const dim3 grid(unsigned(n), unsigned(m * top_k));
  moe_matvec_kernel<F, Act, Mut><<<grid, kMatvecThreads, 0, static_cast<gpuStream_t>(stream)>>>(w, xq, ids, y, n, k,
                                                                                                top_k, experts, t);
}

// One block per expert; its first thread lists the expert's slots in ascending order.
static __global__ void moe_group_kernel(const int32_t* __restrict__ ids, int64_t slots, int32_t* __restrict__ list,
                                 int32_t* __restrict__ count) {
  if (threadIdx.x != 0) return;
  const int e = blockIdx.x;
  int32_t c = 0;
  for (int64_t i = 0; i < slots; ++i)
    if (ids[i] == e) list[int64_t(e) * slots + c++] = int32_t(i);
  count[e] = c;
}

template <class F, int Act>
void launch_moe_gemm(const GemmArgs& a, int experts, const int32_t* ids, int32_t* list, int32_t* count, void* stream) {
  if (a.m <= 0 || a.n <= 0 || experts <= 0) return;
  const gpuStream_t s = static_cast<gpuStream_t>(stream);
  const int64_t slots = a.m * a.top_k;
  moe_group_kernel<<<unsigned(experts), 32, 0, s>>>(ids, slots, list, count);
  GemmArgs b = a;
  b.moe_list = list;
  b.moe_count = count;
  b.moe_cap = slots;
  b.expert_bytes = a.n * (a.k / F::QK) * F::BYTES;
  b.splits = 1;
  b.split_chunks = a.k / 32;
  const dim3 grid(unsigned((a.n + kGemmBN - 1) / kGemmBN), unsigned((slots + kGemmBM - 1) / kGemmBM), unsigned(experts));
  constexpr int GAct = Act == kAct_q8_1 ? kGemmAct_q8_1 : kGemmAct_q8_K;
  gemm_pack<BlockWeights<F>, GAct>(b, s);
  gemm_launch_kernel<BlockWeights<F>, GAct, kGemmMutNone, true>(grid, b, s);
}

}  // namespace qgate::cuk
