// The Vulkan kernels, from kernels.inc: per format a dequant to f32, a dequant to f16 and a
// mat-vec with f32 activations (dequant-only lines: the first two).
#include <bit>
#include <span>
#include <vector>

#include "backends/vulkan/vk_runtime.hpp"
#include "kernels/kernel.hpp"
#include "kernels/vulkan/vk_code.hpp"
#include "oracles/formats/iq_tables.hpp"

#define QGATE_VK_DEQUANT_FORMAT(fmt)                            \
  extern const qgate::vk::Shader qgate_vk_dequant_f32_##fmt;    \
  extern const qgate::vk::Shader qgate_vk_dequant_f16_##fmt;    \
  extern const qgate::vk::Shader qgate_vk_dequant_f32_dp_##fmt; \
  extern const qgate::vk::Shader qgate_vk_dequant_f16_dp_##fmt;
#define QGATE_VK_FORMAT(fmt)                                    \
  QGATE_VK_DEQUANT_FORMAT(fmt)                                  \
  extern const qgate::vk::Shader qgate_vk_matvec_f32_##fmt;     \
  extern const qgate::vk::Shader qgate_vk_matvec_f32_dp_##fmt;
#define QGATE_VK_TABLE_FORMAT(fmt, table) QGATE_VK_FORMAT(fmt)
#include "kernels/vulkan/kernels.inc"
#undef QGATE_VK_FORMAT
#undef QGATE_VK_DEQUANT_FORMAT
#undef QGATE_VK_TABLE_FORMAT

// The shaders read a uint64 grid entry as two words, low word first: the table's own bytes.
static_assert(std::endian::native == std::endian::little, "IQ tables are bound as their host bytes");

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

// mv == nullptr: a dequant-only format (the activation formats).
void add(std::vector<KernelInfo>& v, FormatId f, const vkk::Code& d32, const vkk::Code& d16, const vkk::Code* mv) {
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
  if (!mv) return;
  KernelInfo c{"matmul_" + fmt + "_f32_vk", Op::matmul, BackendId::vulkan, f,
               Precision{ActQuant::none, 23, matvec_depth, OutType::f32, device_flushes_denormals()}, Tile{1, 1, qk}, 8};
  c.launch = vkk::matvec;
  c.device_code = mv;
  v.push_back(c);
}
}  // namespace

void add_vulkan_kernels(std::vector<KernelInfo>& v) {
  using vkk::Code;
  const std::span<const std::byte> none;
#define QGATE_VK_CODE(fmt, table)                                                                          \
  static const Code d32{{&qgate_vk_dequant_f32_##fmt, &qgate_vk_dequant_f32_dp_##fmt}, table};           \
  static const Code d16{{&qgate_vk_dequant_f16_##fmt, &qgate_vk_dequant_f16_dp_##fmt}, table};
#define QGATE_VK_FORMAT(fmt)                                                                               \
  {                                                                                                        \
    QGATE_VK_CODE(fmt, none)                                                                               \
    static const Code mv{{&qgate_vk_matvec_f32_##fmt, &qgate_vk_matvec_f32_dp_##fmt}, none};             \
    add(v, FormatId::fmt, d32, d16, &mv);                                                                  \
  }
#define QGATE_VK_TABLE_FORMAT(fmt, table)                                                                  \
  {                                                                                                        \
    const std::span<const std::byte> t = std::as_bytes(std::span(iq::table));                            \
    QGATE_VK_CODE(fmt, t)                                                                                  \
    static const Code mv{{&qgate_vk_matvec_f32_##fmt, &qgate_vk_matvec_f32_dp_##fmt}, t};                \
    add(v, FormatId::fmt, d32, d16, &mv);                                                                  \
  }
#define QGATE_VK_DEQUANT_FORMAT(fmt)                                                                       \
  {                                                                                                        \
    QGATE_VK_CODE(fmt, none)                                                                               \
    add(v, FormatId::fmt, d32, d16, nullptr);                                                              \
  }
#include "kernels/vulkan/kernels.inc"
#undef QGATE_VK_FORMAT
#undef QGATE_VK_DEQUANT_FORMAT
#undef QGATE_VK_TABLE_FORMAT
#undef QGATE_VK_CODE
}

}  // namespace qgate
