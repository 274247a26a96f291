// The Vulkan kernels, from kernels.inc: per format a dequant to f32, a dequant to f16 and a
// mat-vec with f32 activations.
#include <vector>

#include "backends/vulkan/vk_runtime.hpp"
#include "kernels/kernel.hpp"

#define QGATE_VK_FORMAT(fmt)                                    \
  extern const qgate::vk::Shader qgate_vk_dequant_f32_##fmt;    \
  extern const qgate::vk::Shader qgate_vk_dequant_f16_##fmt;    \
  extern const qgate::vk::Shader qgate_vk_matvec_f32_##fmt;     \
  extern const qgate::vk::Shader qgate_vk_dequant_f32_dp_##fmt; \
  extern const qgate::vk::Shader qgate_vk_dequant_f16_dp_##fmt; \
  extern const qgate::vk::Shader qgate_vk_matvec_f32_dp_##fmt;
#include "kernels/vulkan/kernels.inc"
#undef QGATE_VK_FORMAT

namespace qgate {
namespace vkk {
const char* dequant(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* matvec(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
}  // namespace vkk

namespace {
int64_t matvec_depth(int64_t k) { return 2 * ((k + 63) / 64) + 7; }

// Declared per device: where f32 denormals cannot be preserved, the mat-vec says so and
// its bound carries the flush (oracles/ops/precision.hpp); dequantization stays exact
// (its shaders never form a denormal in float arithmetic).
bool device_flushes_denormals() {
  std::string why;
  const vk::Runtime* rt = vk::Runtime::instance(why);
  return rt && !rt->info().denorm_preserve_f32;
}

void add(std::vector<KernelInfo>& v, FormatId f, const vk::ShaderPair& d32, const vk::ShaderPair& d16,
         const vk::ShaderPair& mv) {
  const std::string fmt(format_info(f).name);
  const int qk = format_info(f).block_elems;
  KernelInfo a{"dequant_" + fmt + "_f32_vk", Op::dequant, BackendId::vulkan, f, Precision{ActQuant::none, 23, nullptr, OutType::f32}, Tile{1, 1, qk}};
  a.launch = vkk::dequant;
  a.device_code = &d32;
  v.push_back(a);
  KernelInfo b{"dequant_" + fmt + "_f16_vk", Op::dequant, BackendId::vulkan, f, Precision{ActQuant::none, 23, nullptr, OutType::f16}, Tile{1, 1, qk}};
  b.launch = vkk::dequant;
  b.device_code = &d16;
  v.push_back(b);
  KernelInfo c{"matmul_" + fmt + "_f32_vk", Op::matmul, BackendId::vulkan, f,
               Precision{ActQuant::none, 23, matvec_depth, OutType::f32, device_flushes_denormals()}, Tile{1, 1, qk}, 8};
  c.launch = vkk::matvec;
  c.device_code = &mv;
  v.push_back(c);
}
}  // namespace

void add_vulkan_kernels(std::vector<KernelInfo>& v) {
#define QGATE_VK_FORMAT(fmt)                                                                               \
  {                                                                                                        \
    static const vk::ShaderPair d32{&qgate_vk_dequant_f32_##fmt, &qgate_vk_dequant_f32_dp_##fmt};        \
    static const vk::ShaderPair d16{&qgate_vk_dequant_f16_##fmt, &qgate_vk_dequant_f16_dp_##fmt};        \
    static const vk::ShaderPair mv{&qgate_vk_matvec_f32_##fmt, &qgate_vk_matvec_f32_dp_##fmt};           \
    add(v, FormatId::fmt, d32, d16, mv);                                                                   \
  }
#include "kernels/vulkan/kernels.inc"
#undef QGATE_VK_FORMAT
}

}  // namespace qgate
