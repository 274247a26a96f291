// The gate+up pair on Vulkan (Op::gate_up, kernels/gate_up.inc), in one command
// buffer: the activation quantizer once (quant_act.comp), the format's int8 mat-vec
// (matvec_q8.comp) over all 2N rows of the merged weight [W_gate; W_up] into a scratch
// [g | u] per activation row, then y = silu(g) * u (fused_silu_mul.comp, reading the scratch
// as both its buffers, up N words after gate). Declared precision: the int8 mat-vec's
// (registry_vk.cpp) and the Vulkan builtins' (vulkan_math, which gate_up_ref takes).
#include <cstring>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "backends/vulkan/vk_runtime.hpp"
#include "core/kernel.hpp"
#include "kernels/mutant.hpp"
#include "kernels/vulkan/launch_util.hpp"
#include "kernels/vulkan/vk_code.hpp"

extern const qgate::vk::Shader qgate_vk_fused_silu_mul_f32;
extern const qgate::vk::Shader qgate_vk_fused_silu_mul_dp_f32;

namespace qgate::vkk {

const char* gate_up(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  const FormatInfo& f = format_info(k.format);
  if (const char* e = gate_up_rows_error(w.n)) return e;
  if (w.k % f.block_elems) return "gate_up: k is not a multiple of the block size";
  if (m < 1) return "gate_up: m must be >= 1";
  if (m * w.n >= (int64_t{1} << 31)) return "gate_up: more than 2^31 mat-vec outputs";
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const Code& code = *static_cast<const Code*>(k.device_code);
  const int64_t n = w.n / 2;
  Scoped gu(rt, static_cast<size_t>(m * w.n) * 4);
  if (!gu.b.map) return fail("vulkan: buffer allocation failed");
  // Planted (mutant build only): SiLU(g) * g, the up half's offset left at the gate's.
  const uint32_t u_off = QGATE_MUTANT_ON(vk_gate_up_wrong_half) ? 0u : static_cast<uint32_t>(n);
  const vk::Shader& silu = rt->pick(vk::ShaderPair{&qgate_vk_fused_silu_mul_f32, &qgate_vk_fused_silu_mul_dp_f32});
  return run_q8(k, w, x, m, out, &rt->pick(code.shaders), 0,
                [&](const vk::Shader&, const std::vector<vk::Buffer*>& binds, std::vector<vk::Dispatch>& steps) {
                  std::vector<vk::Buffer*> to_scratch = binds;
                  to_scratch[4] = &gu.b;  // binds[4] is the guarded output (run_q8)
                  matvec_q8_steps(code, rt, w.n, w.k, m, 0, to_scratch, steps);
                  const uint32_t push[5] = {static_cast<uint32_t>(m * n), static_cast<uint32_t>(out.redzone() / 4),
                                            static_cast<uint32_t>(n), static_cast<uint32_t>(w.n), u_off};
                  vk::Dispatch d{&silu, {&gu.b, &gu.b, binds[4]}, {}, 1, 1, 1};
                  d.push.resize(sizeof push);
                  std::memcpy(d.push.data(), push, sizeof push);
                  grid((static_cast<uint64_t>(m * n) + 63) / 64, d.gx, d.gy);
                  steps.push_back(std::move(d));
                });
}

}  // namespace qgate::vkk
