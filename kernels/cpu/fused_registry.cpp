// Builds fused_kernels() from kernels/fused.inc.
#include <vector>

#include "core/launch_adapters.hpp"
#include "kernels/cpu/fused.hpp"
#include "kernels/registrars.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace {

constexpr Depth depth_norm{1, cpu::kNormLanes, 3};
constexpr Depth depth_seq{};

std::vector<KernelInfo> build() {
  std::vector<KernelInfo> v;
  using cpu::kFlashTile;
#define QGATE_FUSED_cpu(stem, op, fn, depth, tile_k, p) \
  v.push_back(fused_kernel(#stem, BackendId::cpu, Op::op, from_fused<cpu::fn>, depth, tile_k, OutType::p, FusedMath{}));
#include "kernels/fused.inc"
#undef QGATE_FUSED_cpu
#ifdef QGATE_HAVE_VULKAN
  add_vulkan_fused_kernels(v);
#endif
#ifdef QGATE_HAVE_CUDA
  add_cuda_fused_kernels(v);
#endif
  return v;
}

}  // namespace

KernelInfo fused_kernel(std::string_view stem, BackendId b, Op op, LaunchFn launch, Depth depth, int tile_k, OutType p,
                        const FusedMath& math) {
  KernelInfo k{fused_kernel_name(stem, b), op, b, FormatId::q8_0,
               Precision{ActQuant::none, 23, depth, OutType::f32}, Tile{1, 1, tile_k}};
  k.launch = launch;
  k.p_type = p;
  k.math = math;
  return k;
}

std::span<const KernelInfo> fused_kernels() {
  static const std::vector<KernelInfo> v = build();
  return v;
}

}  // namespace qgate
