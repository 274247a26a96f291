// The CUDA kernels, from kernels.inc: per format dequant to f32 / f16 / bf16 (exact:
// correctly rounded) and, for weight formats, the int8-dot decode mat-vec with the
// activation quantization the line names (the float formats: the mat-vec on f32
// activations), declaring its longest rounding chain.
#include <numeric>
#include <vector>

#include "oracles/formats/gptq.hpp"
#include "kernels/cuda/cuda_code.hpp"
#include "kernels/registrars.hpp"
#include "core/kernel.hpp"
#include "core/launch_adapters.hpp"

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
// The K one pass of a kernel's loop covers, declared as its tile.k so that the generators draw
// K past several passes: the mat-vecs' threads take 32-element chunks tid, tid + T, ...; the
// GEMM walks K in stages of kGemmStage chunks.
constexpr int kMatvecSweepK = 32 * cuk::kMatvecThreads, kGemmStageK = 32 * cuk::kGemmStage;

constexpr Depth matvec_depth{1, kMatvecSweepK, log2_threads() + 6};

void add(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuk::Code& code) {
  const int qk = format_info(f).block_elems;
  for (OutType o : {OutType::f32, OutType::f16, OutType::bf16}) {
    KernelInfo d{kernel_name("dequant", f, out_name(o), BackendId::cuda), Op::dequant, BackendId::cuda, f,
                 Precision{ActQuant::none, 23, Depth{}, o}, Tile{1, 1, qk}};
    d.launch = from_weight<cuk::launch_dequant>;
    d.device_code = &code;
    v.push_back(d);
  }
  if (!code.matvec) return;
  KernelInfo mv{kernel_name("matmul", f, act_name(act), BackendId::cuda), Op::matmul, BackendId::cuda, f,
                Precision{act, 23, matvec_depth, OutType::f32}, Tile{1, 1, std::lcm(qk, kMatvecSweepK)}, cuk::kMatvecRows};
  mv.launch = from_weight<cuk::launch_matvec>;
  mv.device_code = &code;
  v.push_back(mv);
}

// matvec_float.cu: 32 fmas per block in sequence, ceil(k / 32 / T) blocks per thread, + 1
// (the weight's scale product) + log2(T) tree levels.
constexpr Depth float_matvec_depth{32, kMatvecSweepK, 1 + log2_threads()};

void add_float_matvec(std::vector<KernelInfo>& v, FormatId f, const cuk::Code& code) {
  KernelInfo mv{kernel_name("matmul", f, "f32", BackendId::cuda), Op::matmul, BackendId::cuda, f,
                Precision{ActQuant::none, 23, float_matvec_depth, OutType::f32}, Tile{1, 1, std::lcm(code.block_elems, kMatvecSweepK)},
                cuk::kMatvecRows};
  mv.launch = from_weight<cuk::launch_matvec>;
  mv.device_code = &code;
  v.push_back(mv);
}

// gemm.cuh: one accumulation per 32-element chunk (split-K included, see there) + at most
// 6 roundings inside a chunk, as the mat-vec; the oracle adds its 4 per-term roundings.
constexpr Depth gemm_depth{1, 32, 6};

void add_gemm(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuk::Code& code) {
  KernelInfo g{kernel_name("gemm", f, act_name(act), BackendId::cuda), Op::matmul,
               BackendId::cuda, f, Precision{act, 23, gemm_depth, OutType::f32},
               Tile{cuk::kGemmBM, cuk::kGemmBN, std::lcm(code.block_elems, kGemmStageK)}, 0};
  g.launch = from_weight<cuk::launch_gemm>;
  g.device_code = &code;
  if (code.gptq) g.accepts = gptq::w4a8_accepts;  // contiguous groups, a multiple of 32
  v.push_back(g);
}

// Indexed MoE: the decode kernel has the mat-vec's arithmetic (one token per block, so its
// depth at m = 1), the prefill kernel the GEMM's.
void add_moe(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuk::Code& mv, const cuk::Code& gm) {
  KernelInfo d{kernel_name("moe_matvec", f, act_name(act), BackendId::cuda), Op::moe_matmul, BackendId::cuda, f, Precision{act, 23, matvec_depth, OutType::f32},
               Tile{1, 1, std::lcm(mv.block_elems, kMatvecSweepK)}, cuk::kMatvecRows};
  d.launch = from_moe<cuk::launch_moe>;
  d.device_code = &mv;
  v.push_back(d);
  KernelInfo g{kernel_name("moe_gemm", f, act_name(act), BackendId::cuda), Op::moe_matmul, BackendId::cuda, f, Precision{act, 23, gemm_depth, OutType::f32},
               Tile{cuk::kGemmBM, cuk::kGemmBN, std::lcm(gm.block_elems, kGemmStageK)}, 0};
  g.launch = from_moe<cuk::launch_moe>;
  g.device_code = &gm;
  v.push_back(g);
}

// GPTQ (matvec_gptq.cu): dequant exact as the block formats'; the W4A8 mat-vec has the
// GEMM's per-chunk arithmetic, each output's chunks spread over cuk::kGptqMatvecKThreads
// threads (thread t: chunks t, t + kGptqMatvecKThreads, ... in order), their partial sums
// added in a pairwise tree.
constexpr int64_t gptq_levels() {
  int64_t levels = 0;
  while ((int64_t{1} << levels) < cuk::kGptqMatvecKThreads) ++levels;
  return levels;
}
constexpr Depth gptq_matvec_depth{1, 32 * cuk::kGptqMatvecKThreads, gptq_levels() + 6};

void add_gptq(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const cuk::Code& dq, const cuk::Code& code) {
  for (OutType o : {OutType::f32, OutType::f16, OutType::bf16}) {
    KernelInfo d{kernel_name("dequant", f, out_name(o), BackendId::cuda), Op::dequant, BackendId::cuda, f,
                 Precision{ActQuant::none, 23, Depth{}, o}, Tile{1, 8, 8}};
    d.launch = from_weight<cuk::launch_dequant>;
    d.device_code = &dq;
    v.push_back(d);
  }
  KernelInfo mv{kernel_name("matmul", f, act_name(act), BackendId::cuda), Op::matmul, BackendId::cuda, f,
                Precision{act, 23, gptq_matvec_depth, OutType::f32}, Tile{1, 8, 32 * cuk::kGptqMatvecKThreads}, cuk::kMatvecRows};
  mv.launch = from_weight<cuk::launch_matvec>;
  mv.device_code = &code;
  mv.accepts = gptq::w4a8_accepts;  // contiguous groups, a multiple of 32
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
#define QGATE_CUDA_GEMM(fmt, act, family)                                                        \
  {                                                                                              \
    constexpr bool gptq = FormatId::fmt == FormatId::gptq_int4;                                  \
    static const cuk::Code code{nullptr, nullptr, gptq ? 32 : format_info(FormatId::fmt).block_elems, \
                                cuk::gemm_##fmt, gptq};                                          \
    add_gemm(v, FormatId::fmt, ActQuant::act, code);                                             \
  }
#define QGATE_CUDA_MOE(fmt, act)                                                                 \
  {                                                                                              \
    static cuk::Code mv{nullptr, nullptr, format_info(FormatId::fmt).block_elems};               \
    static cuk::Code gm{nullptr, nullptr, format_info(FormatId::fmt).block_elems};               \
    mv.moe_matvec = cuk::moe_matvec_##fmt;                                                       \
    gm.moe_gemm = cuk::moe_gemm_##fmt;                                                           \
    add_moe(v, FormatId::fmt, ActQuant::act, mv, gm);                                            \
  }
#define QGATE_CUDA_GPTQ(fmt, act)                                                                \
  {                                                                                              \
    static const cuk::Code dq{cuk::dequant_##fmt, nullptr, 8};    /* k: a multiple of 8 */      \
    static const cuk::Code mv{nullptr, cuk::matvec_##fmt, 32};    /* q8_1: of 32 */             \
    add_gptq(v, FormatId::fmt, ActQuant::act, dq, mv);                                           \
  }
#define QGATE_CUDA_FLOAT_MATVEC(fmt)                                                             \
  {                                                                                              \
    static const cuk::Code code{nullptr, cuk::matvec_f32_##fmt, format_info(FormatId::fmt).block_elems}; \
    add_float_matvec(v, FormatId::fmt, code);                                                    \
  }
#include "kernels/cuda/kernels.inc"
  add_cuda_gate_up_kernels(v);
}

}  // namespace qgate
