// The CUDA kernels, from kernels.inc: per format dequant to f32 / f16 / bf16 (exact:
// correctly rounded) and, for weight formats, the int8-dot decode mat-vec with the
// activation quantization the line names, declaring its longest rounding chain.
#include <vector>

#include "kernels/cuda/cuda_code.hpp"
#include "kernels/kernel.hpp"

namespace qgate {
namespace {

// matvec.cuh: ceil(k / 32 / T) accumulations + log2(T) tree levels + at most 6 roundings
// inside a chunk (2 per sub-block for the scale product and min subtraction, the chunk
// sum, the activation-scale product); the oracle adds its own 4 per-term roundings on top.
constexpr int64_t log2_threads() {
  int64_t l = 0;
  while ((int64_t{1} << l) < cuk::kMatvecThreads) ++l;
  return l;
}
int64_t matvec_depth(int64_t k) { return (k / 32 + cuk::kMatvecThreads - 1) / cuk::kMatvecThreads + log2_threads() + 6; }

void add(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuk::Code& code) {
  const std::string fmt(format_info(f).name);
  const int qk = format_info(f).block_elems;
  for (OutType o : {OutType::f32, OutType::f16, OutType::bf16}) {
    KernelInfo d{"dequant_" + fmt + "_" + std::string(out_name(o)) + "_cuda", Op::dequant, BackendId::cuda, f,
                 Precision{ActQuant::none, 23, nullptr, o}, Tile{1, 1, qk}};
    d.launch = cuk::launch_dequant;
    d.device_code = &code;
    v.push_back(d);
  }
  if (!code.matvec) return;
  KernelInfo mv{"matmul_" + fmt + "_" + std::string(act_name(act)) + "_cuda", Op::matmul, BackendId::cuda, f,
                Precision{act, 23, matvec_depth, OutType::f32}, Tile{1, 1, qk}, cuk::kMatvecRows};
  mv.launch = cuk::launch_matvec;
  mv.device_code = &code;
  v.push_back(mv);
}

}  // namespace

void add_cuda_kernels(std::vector<KernelInfo>& v) {
#define QGATE_CUDA_FORMAT(fmt, act, family)                                                      \
  {                                                                                              \
    static const cuk::Code code{cuk::dequant_##fmt, cuk::matvec_##fmt, format_info(FormatId::fmt).block_elems}; \
    add(v, FormatId::fmt, ActQuant::act, code);                                                  \
  }
#define QGATE_CUDA_DEQUANT_FORMAT(fmt, family)                                                   \
  {                                                                                              \
    static const cuk::Code code{cuk::dequant_##fmt, nullptr, format_info(FormatId::fmt).block_elems}; \
    add(v, FormatId::fmt, ActQuant::none, code);                                                 \
  }
#include "kernels/cuda/kernels.inc"
#undef QGATE_CUDA_FORMAT
#undef QGATE_CUDA_DEQUANT_FORMAT
}

}  // namespace qgate
