// Builds the kernel list from each backend's kernels.inc.
#include <vector>

#include "kernels/cpu/dequant.hpp"
#include "kernels/cpu/gptq.hpp"
#include "oracles/formats/gptq.hpp"
#include "core/launch_adapters.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace {

template <class U, ActQuant A>
void add_block_format(std::vector<KernelInfo>& v, FormatId f) {
  const Tile blk{1, 1, U::elems};
  for (OutType o : {OutType::f32, OutType::f16, OutType::bf16}) {
    KernelInfo d{kernel_name("dequant", f, out_name(o), BackendId::cpu), Op::dequant, BackendId::cpu, f,
                 Precision{ActQuant::none, 23, Depth{}, o}, blk};
    d.launch = o == OutType::f32 ? from_dequant<cpu::dequant<U, OutType::f32>>
             : o == OutType::f16 ? from_dequant<cpu::dequant<U, OutType::f16>> : from_dequant<cpu::dequant<U, OutType::bf16>>;
    v.push_back(d);
  }
  if constexpr (A == ActQuant::none) {
    return;
  } else {
    KernelInfo mv{kernel_name("matmul", f, "f32", BackendId::cpu), Op::matmul, BackendId::cpu, f,
                  Precision{ActQuant::none, 23, Depth{1, cpu::kMatvecLanes, 3}, OutType::f32},
                  Tile{1, 1, U::elems}, 8};
    mv.launch = from_matmul<cpu::matvec_f32<U>>;
    v.push_back(mv);
    KernelInfo gm{kernel_name("gemm", f, "f32", BackendId::cpu), Op::matmul, BackendId::cpu, f,
                  Precision{ActQuant::none, 23, Depth{1, 1, 0}, OutType::f32},
                  Tile{cpu::kGemmTileM, cpu::kGemmTileN, U::elems}, 0};
    gm.launch = from_matmul<cpu::gemm_f32<U>>;
    v.push_back(gm);
    constexpr int64_t inner = cpu::qact_inner_depth<U, A>();
    KernelInfo q{kernel_name("matmul", f, act_name(A), BackendId::cpu), Op::matmul, BackendId::cpu, f,
                 Precision{A, 23, Depth{1, U::elems, inner}, OutType::f32}, Tile{1, 1, U::elems}, 8};
    q.launch = from_matmul<cpu::matvec_qact<U, A>>;
    v.push_back(q);
    KernelInfo gq{kernel_name("gemm", f, act_name(A), BackendId::cpu), Op::matmul, BackendId::cpu, f,
                  Precision{A, 23, Depth{1, U::elems, inner}, OutType::f32},
                  Tile{cpu::kGemmTileM, cpu::kGemmTileN, U::elems}, 0};
    gq.launch = from_matmul<cpu::gemm_qact<U, A>>;
    v.push_back(gq);
  }
}

// SwiGLU over a merged [W_gate; W_up] weight: the integer-dot mat-vec's precision (its
// depth), M <= 8 like the mat-vec; the SiLU*mul epilogue is in the oracle (gate_up_ref).
template <class U, ActQuant A>
void add_gate_up(std::vector<KernelInfo>& v, FormatId f) {
  constexpr int64_t inner = cpu::qact_inner_depth<U, A>();
  KernelInfo g{kernel_name("gate_up", f, act_name(A), BackendId::cpu), Op::gate_up,
               BackendId::cpu, f, Precision{A, 23, Depth{1, U::elems, inner}, OutType::f32}, Tile{1, 1, U::elems}, 8};
  g.launch = from_matmul<cpu::gate_up_qact<U, A>>;
  v.push_back(g);
}

void add_gptq(std::vector<KernelInfo>& v) {
  const FormatId f = FormatId::gptq_int4;
  for (OutType o : {OutType::f32, OutType::f16, OutType::bf16}) {
    KernelInfo d{kernel_name("dequant", f, out_name(o), BackendId::cpu), Op::dequant, BackendId::cpu, f,
                 Precision{ActQuant::none, 23, Depth{}, o}, Tile{1, 8, 8}};
    d.launch = o == OutType::f32 ? from_dequant<cpu::gptq_dequant<OutType::f32>>
             : o == OutType::f16 ? from_dequant<cpu::gptq_dequant<OutType::f16>> : from_dequant<cpu::gptq_dequant<OutType::bf16>>;
    v.push_back(d);
  }
  KernelInfo mv{kernel_name("matmul", f, "f32", BackendId::cpu), Op::matmul, BackendId::cpu, f,
                Precision{ActQuant::none, 23, Depth{1, 8, 3}, OutType::f32}, Tile{1, 8, 8}, 8};
  mv.launch = from_matmul<cpu::gptq_matvec_f32>;
  v.push_back(mv);
  KernelInfo gm{kernel_name("gemm", f, "f32", BackendId::cpu), Op::matmul, BackendId::cpu, f,
                Precision{ActQuant::none, 23, Depth{1, 1, 0}, OutType::f32}, Tile{4, 8, 8}, 0};
  gm.launch = from_matmul<cpu::gptq_gemm_f32>;
  v.push_back(gm);
  KernelInfo asym{kernel_name("matmul", f, "q8_1", BackendId::cpu), Op::matmul, BackendId::cpu, f,
                  Precision{ActQuant::q8_1, 23, Depth{1, 32, 3}, OutType::f32}, Tile{1, 8, 32}, 8};
  asym.launch = from_matmul<cpu::gptq_matvec_q8_1<false>>;
  asym.accepts = gptq::w4a8_accepts;
  v.push_back(asym);
  KernelInfo sym{"matmul_gptq_int4sym_q8_1_cpu", Op::matmul, BackendId::cpu, f,
                 Precision{ActQuant::q8_1, 23, Depth{1, 32, 3}, OutType::f32}, Tile{1, 8, 32}, 8};
  sym.launch = from_matmul<cpu::gptq_matvec_q8_1<true>>;
  sym.accepts = gptq::w4a8_sym_accepts;
  v.push_back(sym);
}

std::vector<KernelInfo> build() {
  std::vector<KernelInfo> v;
#define QGATE_CPU_BLOCK_FORMAT(fmt, act) add_block_format<cpu::Unpack_##fmt, ActQuant::act>(v, FormatId::fmt);
#include "kernels/cpu/kernels.inc"
#undef QGATE_CPU_BLOCK_FORMAT
  add_gptq(v);
  add_cpu_moe_kernels(v);
#define QGATE_GATE_UP_cpu(fmt, act) add_gate_up<cpu::Unpack_##fmt, ActQuant::act>(v, FormatId::fmt);
#include "kernels/gate_up.inc"
#undef QGATE_GATE_UP_cpu
#ifdef QGATE_HAVE_VULKAN
  add_vulkan_kernels(v);
#endif
#ifdef QGATE_HAVE_CUDA
  add_cuda_kernels(v);
#endif
  return v;
}

}  // namespace

std::span<const KernelInfo> all_kernels() {
  static const std::vector<KernelInfo> v = build();
  return v;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& k : all_kernels())
    if (k.name == name) return &k;
  for (const KernelInfo& k : fused_kernels())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace qgate
