// LaunchFn adapters over narrower signatures: the plain host ones of CPU kernels and of an
// engine's own functions (DequantFn, MatmulFn), a weight op's or an indexed MoE's launch on
// the tensor (the device backends'), and a fused op's function of FusedArgs. The
// function is a template argument, so an adapter is an ordinary LaunchFn and the descriptor
// keeps its one entry point:
//   k.launch = qgate::from_matmul<my_engine::matvec_q8_0>;
#pragma once
#include "core/fused_args.hpp"
#include "core/guarded.hpp"
#include "core/kernel.hpp"

namespace qgate {

template <DequantFn F>
const char* from_dequant(const KernelInfo&, const LaunchArgs& a) {
  return F(a.w->bytes.data(), a.w->n, a.w->k, a.out->data());
}

template <MatmulFn F>
const char* from_matmul(const KernelInfo&, const LaunchArgs& a) {
  return F(a.w->bytes.data(), a.w->n, a.w->k, a.x, a.m, a.out->data());
}

// A weight op's launch on the tensor, M activation rows and the guarded output (the device
// backends' own launch functions).
using WeightFn = const char* (*)(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out);
template <WeightFn F>
const char* from_weight(const KernelInfo& k, const LaunchArgs& a) {
  return F(k, *a.w, a.x, a.m, *a.out);
}

using MoeFn = const char* (*)(const KernelInfo& k, const QTensor& w, int64_t experts, const float* x, int64_t m,
                              const int32_t* ids, int64_t top_k, GuardedBuffer& out);
template <MoeFn F>
const char* from_moe(const KernelInfo& k, const LaunchArgs& a) {
  return F(k, *a.w, a.experts, a.x, a.m, a.ids, a.top_k, *a.out);
}

using FusedFn = const char* (*)(const FusedArgs& a);
template <FusedFn F>
const char* from_fused(const KernelInfo&, const LaunchArgs& a) {
  return F(*a.fused);
}

}  // namespace qgate
