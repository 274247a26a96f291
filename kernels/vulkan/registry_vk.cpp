// The Vulkan kernels, from kernels.inc: per format a dequant to f32, a dequant to f16 and a
// mat-vec with f32 activations; for the int8 formats also the mat-vec and the tiled GEMM
// on device-quantized activations, each as a portable kernel and as its packed-dot twin,
// and for the formats of kernels/gate_up.inc the gate+up pair on that mat-vec.
#include <bit>
#include <numeric>
#include <span>
#include <vector>

#include "backends/vulkan/vk_runtime.hpp"
#include "oracles/formats/gptq.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "core/launch_adapters.hpp"
#include "kernels/vulkan/vk_code.hpp"
#include "oracles/ops/fused_math.hpp"
#include "oracles/formats/iq_tables.hpp"

// Each shader as is and with DenormPreserve: qgate_vk_<variant>_<fmt>, qgate_vk_<variant>_dp_<fmt>.
#define QGATE_VK_PAIR(variant, fmt) \
  extern const qgate::vk::Shader qgate_vk_##variant##_##fmt; \
  extern const qgate::vk::Shader qgate_vk_##variant##_dp_##fmt;
#define QGATE_VK_DEQUANT_FORMAT(fmt) QGATE_VK_PAIR(dequant_f32, fmt) QGATE_VK_PAIR(dequant_f16, fmt)
#define QGATE_VK_FORMAT(fmt) QGATE_VK_DEQUANT_FORMAT(fmt) QGATE_VK_PAIR(matvec_f32, fmt)
#define QGATE_VK_QFORMAT(fmt, act)                                                                  \
  QGATE_VK_FORMAT(fmt) QGATE_VK_PAIR(matvec_q8, fmt) QGATE_VK_PAIR(matvec_q8dot, fmt)             \
      QGATE_VK_PAIR(matvec_q8m1, fmt) QGATE_VK_PAIR(matvec_q8dotm1, fmt)                          \
      QGATE_VK_PAIR(gemm_q8, fmt) QGATE_VK_PAIR(gemm_q8dot, fmt)
#define QGATE_VK_TABLE_FORMAT(fmt, act, table) QGATE_VK_QFORMAT(fmt, act)
#include "kernels/vulkan/kernels.inc"
QGATE_VK_PAIR(quant, q8_1)
QGATE_VK_PAIR(quant, q8_K)
QGATE_VK_PAIR(dequant_f32, gptq_int4)  // gptq.comp: the tensor-level GPTQ format
QGATE_VK_PAIR(dequant_f16, gptq_int4)
QGATE_VK_PAIR(gptq_matvec_f32, gptq_int4)
QGATE_VK_PAIR(gptq_matvec_q8, gptq_int4)
QGATE_VK_PAIR(gptq_matvec_q8dot, gptq_int4)
#undef QGATE_VK_FORMAT
#undef QGATE_VK_QFORMAT
#undef QGATE_VK_DEQUANT_FORMAT
#undef QGATE_VK_TABLE_FORMAT

// The shaders read a uint64 grid entry as two words, low word first: the table's own bytes.
static_assert(std::endian::native == std::endian::little, "IQ tables are bound as their host bytes");

namespace qgate {
namespace vkk {
const char* dequant(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* matvec(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* matvec_q8(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* gemm_q8(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* gptq_dequant(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* gptq_matvec(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* gptq_matvec_q8(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* gate_up(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
}  // namespace vkk

namespace {
constexpr Depth matvec_depth{2, 64, 7};
// matvec_q8.comp: chunks per invocation + 3 (v) + 2 (scaling) + 5 (tree) + 1.
constexpr Depth matvec_q8_depth{1, 1024, 11};
// gptq.comp: a K-slice's packed words in sequence, 8 fmas each, every fma possibly two
// roundings (16 per 32 elements), + 2 (the four slices added pairwise).
constexpr Depth gptq_matvec_depth{16, 32, 2};
// gptq.comp -DQ8: a slice's chunks in order + 3 (v) + 2 (scaling) + 2 (slices).
constexpr Depth gptq_q8_depth{1, 128, 7};
// gemm_q8.comp: every chunk in sequence + 3 (v) + 2 (scaling) + 1.
constexpr Depth gemm_q8_depth{1, 32, 6};

// Declared per device: where f32 denormals cannot be preserved, the mat-vec says so and
// its bound carries the flush (oracles/ops/precision.hpp); dequantization stays exact
// (its shaders never form a denormal in float arithmetic).
bool device_flushes_denormals() {
  std::string why;
  const vk::Runtime* rt = vk::Runtime::instance(why);
  return rt && !rt->info().denorm_preserve_f32;
}

// The int8 path's device needs: f64 arithmetic (the activation quantizer's exact
// divisions) and, for the packed-dot twins, shaderIntegerDotProduct.
const char* needs_f64(const KernelInfo&) {
  std::string why;
  const vk::Runtime* rt = vk::Runtime::instance(why);
  if (rt && !rt->info().float64) return "the Vulkan device has no shaderFloat64 (the activation quantizer divides in f64)";
  return nullptr;
}
const char* needs_int_dot(const KernelInfo& k) {
  if (const char* e = needs_f64(k)) return e;
  std::string why;
  const vk::Runtime* rt = vk::Runtime::instance(why);
  if (rt && !rt->info().int_dot)
    return "the Vulkan device has no shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product)";
  return nullptr;
}

Precision prec_f32(OutType out, Depth depth = {}, bool flush = false) {
  return Precision{ActQuant::none, 23, depth, out, flush};
}

void add(std::vector<KernelInfo>& v, std::string name, Op op, FormatId f, Precision p, Tile t, int max_m,
         LaunchFn launch, const vkk::Code& code, const char* (*unavailable)(const KernelInfo&) = nullptr) {
  KernelInfo k{std::move(name), op, BackendId::vulkan, f, p, t, max_m};
  k.launch = launch;
  k.device_code = &code;
  k.unavailable = unavailable;
  v.push_back(std::move(k));
}

int ablk(ActQuant a) { return a == ActQuant::q8_K ? 256 : 32; }  // quant_act.comp's blocks
int qk(FormatId f) { return format_info(f).block_elems; }

void add_dequant(std::vector<KernelInfo>& v, FormatId f, const vkk::Code& d32, const vkk::Code& d16) {
  add(v, kernel_name("dequant", f, "f32", BackendId::vulkan), Op::dequant, f, prec_f32(OutType::f32), Tile{1, 1, qk(f)}, 0, from_weight<vkk::dequant>, d32);
  add(v, kernel_name("dequant", f, "f16", BackendId::vulkan), Op::dequant, f, prec_f32(OutType::f16), Tile{1, 1, qk(f)}, 0, from_weight<vkk::dequant>, d16);
}
void add_matvec(std::vector<KernelInfo>& v, FormatId f, const vkk::Code& mv) {
  add(v, kernel_name("matmul", f, "f32", BackendId::vulkan), Op::matmul, f, prec_f32(OutType::f32, matvec_depth, device_flushes_denormals()),
      Tile{1, 1, std::lcm(qk(f), vkk::kMatvecF32SweepK)}, 8, from_weight<vkk::matvec>, mv);
}
// The int8 path: mat-vec (M <= 8) and the 32 x 32 GEMM, portable and packed-dot.
void add_q8(std::vector<KernelInfo>& v, FormatId f, ActQuant act, const vkk::Code* c) {
  const std::string a(act_name(act));
  const Precision pm{act, 23, matvec_q8_depth, OutType::f32, device_flushes_denormals()};
  const Precision pg{act, 23, gemm_q8_depth, OutType::f32, device_flushes_denormals()};
  const Tile sweep{1, 1, std::lcm(qk(f), vkk::kMatvecQ8SweepK)};
  add(v, kernel_name("matmul", f, a, BackendId::vulkan), Op::matmul, f, pm, sweep, 8, from_weight<vkk::matvec_q8>, c[0], needs_f64);
  add(v, kernel_name("matmul", f, a, BackendId::vulkan, "dot"), Op::matmul, f, pm, sweep, 8, from_weight<vkk::matvec_q8>, c[1], needs_int_dot);
  add(v, kernel_name("gemm", f, a, BackendId::vulkan), Op::matmul, f, pg, Tile{32, 32, qk(f)}, 0, from_weight<vkk::gemm_q8>, c[2], needs_f64);
  add(v, kernel_name("gemm", f, a, BackendId::vulkan, "dot"), Op::matmul, f, pg, Tile{32, 32, qk(f)}, 0, from_weight<vkk::gemm_q8>, c[3], needs_int_dot);
  // The gate+up pair (kernels/gate_up.inc) on the same mat-vec, with the SiLU*mul shader's arithmetic.
  bool gate_up = false;
#define QGATE_GATE_UP_vulkan(fmt, ac) gate_up = gate_up || (f == FormatId::fmt && act == ActQuant::ac);
#include "kernels/gate_up.inc"
#undef QGATE_GATE_UP_vulkan
  if (!gate_up) return;
  add(v, kernel_name("gate_up", f, a, BackendId::vulkan), Op::gate_up, f, pm, sweep, 8, from_weight<vkk::gate_up>, c[0], needs_f64);
  add(v, kernel_name("gate_up", f, a, BackendId::vulkan, "dot"), Op::gate_up, f, pm, sweep, 8, from_weight<vkk::gate_up>, c[1], needs_int_dot);
  v[v.size() - 2].math = v.back().math = vulkan_math(device_flushes_denormals());
}
// GPTQ / AutoRound int4 (gptq.comp, gptq_launch.cpp): exact dequant to f32 and f16, the
// f32-activation mat-vec (any zeros, any g_idx), and the W4A8 mat-vec on q8_1 activations
// (contiguous groups of a multiple of 32, as the CPU W4A8 kernel), portable and packed-dot.
void add_gptq(std::vector<KernelInfo>& v) {
  using vkk::Code;
  const FormatId f = FormatId::gptq_int4;
  static const vk::ShaderPair quant{&qgate_vk_quant_q8_1, &qgate_vk_quant_dp_q8_1};
#define QGATE_VK_GPTQ(variant) vk::ShaderPair{&qgate_vk_##variant##_gptq_int4, &qgate_vk_##variant##_dp_gptq_int4}
  static const Code d32{QGATE_VK_GPTQ(dequant_f32), {}}, d16{QGATE_VK_GPTQ(dequant_f16), {}},
      mv{QGATE_VK_GPTQ(gptq_matvec_f32), {}}, q8{QGATE_VK_GPTQ(gptq_matvec_q8), {}, quant, 32},
      q8dot{QGATE_VK_GPTQ(gptq_matvec_q8dot), {}, quant, 32};
#undef QGATE_VK_GPTQ
  add(v, kernel_name("dequant", f, "f32", BackendId::vulkan), Op::dequant, f, prec_f32(OutType::f32), Tile{1, 8, 8}, 0, from_weight<vkk::gptq_dequant>, d32);
  add(v, kernel_name("dequant", f, "f16", BackendId::vulkan), Op::dequant, f, prec_f32(OutType::f16), Tile{1, 8, 8}, 0, from_weight<vkk::gptq_dequant>, d16);
  add(v, kernel_name("matmul", f, "f32", BackendId::vulkan), Op::matmul, f, prec_f32(OutType::f32, gptq_matvec_depth, device_flushes_denormals()),
      Tile{1, 8, 8}, 8, from_weight<vkk::gptq_matvec>, mv);
  const Precision pq{ActQuant::q8_1, 23, gptq_q8_depth, OutType::f32, device_flushes_denormals()};
  add(v, kernel_name("matmul", f, "q8_1", BackendId::vulkan), Op::matmul, f, pq, Tile{1, 8, 32}, 8, from_weight<vkk::gptq_matvec_q8>, q8, needs_f64);
  add(v, kernel_name("matmul", f, "q8_1", BackendId::vulkan, "dot"), Op::matmul, f, pq, Tile{1, 8, 32}, 8, from_weight<vkk::gptq_matvec_q8>, q8dot, needs_int_dot);
  v[v.size() - 2].accepts = v.back().accepts = gptq::w4a8_accepts;  // contiguous groups, a multiple of 32
}
}  // namespace

void add_vulkan_kernels(std::vector<KernelInfo>& v) {
  using vkk::Code;
  const std::span<const std::byte> none;
  static const vk::ShaderPair quant_q8_1{&qgate_vk_quant_q8_1, &qgate_vk_quant_dp_q8_1};
  static const vk::ShaderPair quant_q8_K{&qgate_vk_quant_q8_K, &qgate_vk_quant_dp_q8_K};
#define QGATE_VK_SHADERS(variant, fmt) vk::ShaderPair{&qgate_vk_##variant##_##fmt, &qgate_vk_##variant##_dp_##fmt}
#define QGATE_VK_DEQUANT(fmt, table)                                    \
  static const Code d32{QGATE_VK_SHADERS(dequant_f32, fmt), table};   \
  static const Code d16{QGATE_VK_SHADERS(dequant_f16, fmt), table};   \
  add_dequant(v, FormatId::fmt, d32, d16);
#define QGATE_VK_MATVEC(fmt, table)                                     \
  static const Code mv{QGATE_VK_SHADERS(matvec_f32, fmt), table};     \
  add_matvec(v, FormatId::fmt, mv);
#define QGATE_VK_Q8(fmt, act, table)                                                              \
  static const Code q8[4] = {{QGATE_VK_SHADERS(matvec_q8, fmt), table, quant_##act, ablk(ActQuant::act),    \
                              QGATE_VK_SHADERS(matvec_q8m1, fmt)},                                            \
                             {QGATE_VK_SHADERS(matvec_q8dot, fmt), table, quant_##act, ablk(ActQuant::act), \
                              QGATE_VK_SHADERS(matvec_q8dotm1, fmt)},                                         \
                             {QGATE_VK_SHADERS(gemm_q8, fmt), table, quant_##act, ablk(ActQuant::act)},      \
                             {QGATE_VK_SHADERS(gemm_q8dot, fmt), table, quant_##act, ablk(ActQuant::act)}};  \
  add_q8(v, FormatId::fmt, ActQuant::act, q8);
#define QGATE_VK_DEQUANT_FORMAT(fmt) { QGATE_VK_DEQUANT(fmt, none) }
#define QGATE_VK_FORMAT(fmt) { QGATE_VK_DEQUANT(fmt, none) QGATE_VK_MATVEC(fmt, none) }
#define QGATE_VK_QFORMAT(fmt, act) { QGATE_VK_DEQUANT(fmt, none) QGATE_VK_MATVEC(fmt, none) QGATE_VK_Q8(fmt, act, none) }
#define QGATE_VK_TABLE_FORMAT(fmt, act, table)                            \
  {                                                                       \
    const std::span<const std::byte> t = std::as_bytes(std::span(iq::table)); \
    QGATE_VK_DEQUANT(fmt, t) QGATE_VK_MATVEC(fmt, t) QGATE_VK_Q8(fmt, act, t) \
  }
#include "kernels/vulkan/kernels.inc"
#undef QGATE_VK_FORMAT
#undef QGATE_VK_QFORMAT
#undef QGATE_VK_DEQUANT_FORMAT
#undef QGATE_VK_TABLE_FORMAT
#undef QGATE_VK_SHADERS
#undef QGATE_VK_DEQUANT
#undef QGATE_VK_MATVEC
#undef QGATE_VK_Q8
  add_gptq(v);
}

}  // namespace qgate
