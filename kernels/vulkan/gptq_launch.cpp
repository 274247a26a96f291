// Vulkan launches of the GPTQ / AutoRound int4 kernels (kernels/vulkan/gptq.comp): the
// container (oracles/formats/gptq.hpp) is uploaded as it is; here its header is checked
// against the launch shape, its size against the layout, and every g_idx entry against the
// group count, so the shader never indexes outside the buffer. Registered in
// registry_vk.cpp (add_vulkan_gptq).
#include <cstring>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "backends/vulkan/vk_runtime.hpp"
#include "core/kernel.hpp"
#include "kernels/mutant.hpp"
#include "kernels/vulkan/launch_util.hpp"
#include "kernels/vulkan/vk_code.hpp"
#include "oracles/formats/gptq.hpp"

#ifdef QGATE_MUTANTS  // mutant build only
extern const qgate::vk::Shader qgate_vk_mutant_stored_zero_gptq_matvec_f32_gptq_int4;
#endif

namespace qgate::vkk {
namespace {

// The shader's push constants (gptq.comp, struct P): word offsets of the arrays.
struct GptqPush {
  uint32_t n, k, group, has_g_idx, qweight, qzeros, scales, g_idx, m, out_word, row0;
};

const char* check_container(const QTensor& w, GptqPush& p) {
  const std::vector<uint8_t>& b = w.bytes;
  if (b.size() < gptq::kHeaderBytes || std::memcmp(b.data(), gptq::kMagic, 8) != 0)
    return fail("gptq: not a qgate GPTQ container (magic QGGPTQ1 missing)");
  uint32_t h[4];
  std::memcpy(h, b.data() + 8, 16);
  if (h[0] != w.k || h[1] != w.n) return fail("gptq: container shape does not match the launch shape");
  if (h[2] == 0) return fail("gptq: group size 0");
  if (w.n > (int64_t{1} << 26) || w.k > (int64_t{1} << 26) || w.n * w.k >= (int64_t{1} << 32))
    return fail("gptq: tensor too large for the shader's 32-bit element indices");
  gptq::Params prm;
  prm.n = w.n;
  prm.k = w.k;
  prm.group_size = static_cast<int>(h[2]);
  prm.has_g_idx = (h[3] & gptq::kFlagGIdx) != 0;
  gptq::Layout lay;
  try {
    lay = gptq::layout(prm);
  } catch (const std::exception& e) {
    return fail(std::string("gptq: ") + e.what());
  }
  if (b.size() < lay.total) return fail("gptq: container truncated");
  if (prm.has_g_idx)
    for (int64_t i = 0; i < w.k; ++i) {
      int32_t g;
      std::memcpy(&g, b.data() + lay.g_idx + 4 * i, 4);
      if (g < 0 || g >= lay.groups) return fail("gptq: g_idx entry outside the groups");
    }
  p = GptqPush{static_cast<uint32_t>(w.n), static_cast<uint32_t>(w.k), h[2], prm.has_g_idx ? 1u : 0u,
               static_cast<uint32_t>(lay.qweight / 4), static_cast<uint32_t>(lay.qzeros / 4),
               static_cast<uint32_t>(lay.scales / 4), static_cast<uint32_t>(lay.g_idx / 4), 0, 0, 0};
  return nullptr;
}

// The Vulkan runtime and the container's push constants, or why not.
const char* open_container(const QTensor& w, vk::Runtime*& rt, GptqPush& p) {
  std::string why;
  rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  return check_container(w, p);
}

}  // namespace

const char* gptq_dequant(const KernelInfo& k, const QTensor& w, const float*, int64_t, GuardedBuffer& out) {
  vk::Runtime* rt = nullptr;
  GptqPush p;
  if (const char* e = open_container(w, rt, p)) return e;
  const Code& code = *static_cast<const Code*>(k.device_code);
  Scoped wb(rt, w.bytes.size()), ob(rt, out.region_bytes());
  if (!wb.b.map || !ob.b.map) return fail("vulkan: buffer allocation failed");
  std::memcpy(wb.b.map, w.bytes.data(), w.bytes.size());
  std::memcpy(ob.b.map, out.region(), out.region_bytes());
  p.out_word = static_cast<uint32_t>(out.redzone() / 4);
  const uint64_t elems = static_cast<uint64_t>(w.n) * static_cast<uint64_t>(w.k);
  const uint64_t threads = k.prec.out == OutType::f16 ? elems / 2 : elems;  // k is a multiple of 8
  uint32_t gx, gy;
  grid((threads + 63) / 64, gx, gy);
  std::vector<vk::Buffer*> binds = {&wb.b, &ob.b};
  if (std::string e = rt->dispatch(rt->pick(code.shaders), binds, &p, gx, gy); !e.empty()) return fail(e);
  std::memcpy(out.region(), ob.b.map, out.region_bytes());
  return nullptr;
}

const char* gptq_matvec(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  vk::Runtime* rt = nullptr;
  GptqPush p;
  if (const char* e = open_container(w, rt, p)) return e;
  const Code& code = *static_cast<const Code*>(k.device_code);
  const vk::Shader* shader = &rt->pick(code.shaders);
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_gptq_stored_zero)) shader = &qgate_vk_mutant_stored_zero_gptq_matvec_f32_gptq_int4;
#endif
  constexpr int64_t kRows = 8;  // the shader keeps 8 accumulators
  Scoped wb(rt, w.bytes.size()), xb(rt, static_cast<size_t>(kRows * w.k) * 4), ob(rt, out.region_bytes());
  if (!wb.b.map || !xb.b.map || !ob.b.map) return fail("vulkan: buffer allocation failed");
  std::memcpy(wb.b.map, w.bytes.data(), w.bytes.size());
  std::memcpy(ob.b.map, out.region(), out.region_bytes());
  std::vector<vk::Buffer*> binds = {&wb.b, &xb.b, &ob.b};
  for (int64_t m0 = 0; m0 < m; m0 += kRows) {
    const int64_t rows = std::min(kRows, m - m0);
    std::memcpy(xb.b.map, x + m0 * w.k, static_cast<size_t>(rows * w.k) * 4);
    p.m = static_cast<uint32_t>(rows);
    p.out_word = static_cast<uint32_t>(out.redzone() / 4 + m0 * w.n);
    uint32_t gx, gy;
    grid(static_cast<uint64_t>((w.n + 63) / 64), gx, gy);
    if (std::string e = rt->dispatch(*shader, binds, &p, gx, gy); !e.empty()) return fail(e);
  }
  std::memcpy(out.region(), ob.b.map, out.region_bytes());
  return nullptr;
}

// W4A8 on q8_1 activations (gptq.comp -DQ8): accepts() has refused g_idx and groups that
// are not multiples of 32; checked again here, since the shader assumes both.
const char* gptq_matvec_q8(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  vk::Runtime* rt = nullptr;
  GptqPush p;
  if (const char* e = open_container(w, rt, p)) return e;
  if (p.has_g_idx || p.group % 32) return fail("gptq W4A8: needs contiguous groups (no g_idx) of a multiple of 32");
  const Code& code = *static_cast<const Code*>(k.device_code);
  constexpr int64_t kRows = 8;  // the shader keeps 8 accumulators
  return run_q8(k, w, x, m, out, &rt->pick(code.shaders), 0,
                [&](const vk::Shader& s, const std::vector<vk::Buffer*>& binds, std::vector<vk::Dispatch>& steps) {
                  for (int64_t m0 = 0; m0 < m; m0 += kRows) {
                    GptqPush q = p;
                    q.m = static_cast<uint32_t>(std::min(kRows, m - m0));
                    q.out_word = static_cast<uint32_t>(out.redzone() / 4 + m0 * w.n);
                    q.row0 = static_cast<uint32_t>(m0);
                    vk::Dispatch d{&s, binds, std::vector<uint8_t>(sizeof q), 1, 1, 1};
                    std::memcpy(d.push.data(), &q, sizeof q);
                    grid(static_cast<uint64_t>((w.n + 63) / 64), d.gx, d.gy);
                    steps.push_back(std::move(d));
                  }
                });
}

}  // namespace qgate::vkk
