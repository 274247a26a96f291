// Builds fused_kernels() from kernels/cpu/fused.inc.
#include <vector>

#include "kernels/cpu/fused.hpp"
#include "kernels/registry.hpp"

namespace qgate {
#ifdef QGATE_HAVE_VULKAN
void add_vulkan_fused_kernels(std::vector<KernelInfo>& v);  // kernels/vulkan/fused_launch.cpp
#endif
#ifdef QGATE_HAVE_CUDA
void add_cuda_fused_kernels(std::vector<KernelInfo>& v);  // kernels/cuda/fused_launch.cpp
#endif
namespace {

constexpr Depth depth_norm{1, cpu::kNormLanes, 3};
constexpr Depth depth_seq{};

std::vector<KernelInfo> build() {
  std::vector<KernelInfo> v;
  using cpu::kFlashTile;
#define QGATE_CPU_FUSED(name, op, fn, depth, tile_k, p)                                                         \
  {                                                                                                          \
    KernelInfo k{#name, Op::op, BackendId::cpu, FormatId::q8_0, Precision{ActQuant::none, 23, depth, OutType::f32}, \
                 Tile{1, 1, tile_k}};                                                                        \
    k.fused = cpu::fn;                                                                                       \
    k.p_type = OutType::p;                                                                                   \
    v.push_back(k);                                                                                          \
  }
#include "kernels/cpu/fused.inc"
#undef QGATE_CPU_FUSED
#ifdef QGATE_HAVE_VULKAN
  add_vulkan_fused_kernels(v);
#endif
#ifdef QGATE_HAVE_CUDA
  add_cuda_fused_kernels(v);
#endif
  return v;
}

}  // namespace

std::span<const KernelInfo> fused_kernels() {
  static const std::vector<KernelInfo> v = build();
  return v;
}

}  // namespace qgate
