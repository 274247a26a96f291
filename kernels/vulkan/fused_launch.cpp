// Vulkan launches of the fusion and attention kernels (kernels/fused.inc): upload the
// inputs, mirror each output with its guards (FusedArgs::red_*) on the device, dispatch,
// copy every mirrored region back, so device-side writes past an output, unwritten poison
// and clobbered cache rows show in the verdict as on the CPU. Registered into
// fused_kernels() with the precision of the Vulkan builtins (oracles/ops/fused_math.hpp).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/vulkan/vk_runtime.hpp"
#include "core/fused_args.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "core/launch_adapters.hpp"
#include "kernels/mutant.hpp"
#include "kernels/registry.hpp"

#define QGATE_VK_FUSED_PAIR(variant, tag)               \
  extern const qgate::vk::Shader qgate_vk_##variant##_##tag; \
  extern const qgate::vk::Shader qgate_vk_##variant##_dp_##tag;
QGATE_VK_FUSED_PAIR(fused_add_rmsnorm, f32)
QGATE_VK_FUSED_PAIR(fused_qk_norm_rope, f32)
QGATE_VK_FUSED_PAIR(fused_moe_route, f32)
QGATE_VK_FUSED_PAIR(fused_silu_mul, f32)
QGATE_VK_FUSED_PAIR(fused_attention, eager)
QGATE_VK_FUSED_PAIR(fused_attention, pf32)
QGATE_VK_FUSED_PAIR(fused_attention, pf16)
QGATE_VK_FUSED_PAIR(fused_attention, pbf16)
#ifdef QGATE_MUTANTS  // mutant build only
extern const qgate::vk::Shader qgate_vk_mutant_rescale_dropped_fused_attention_pf32;
extern const qgate::vk::Shader qgate_vk_mutant_rescale_dropped_fused_attention_pf32_dp;
extern const qgate::vk::Shader qgate_vk_mutant_p_fp8_fused_attention_pbf16;
extern const qgate::vk::Shader qgate_vk_mutant_p_fp8_fused_attention_pbf16_dp;
extern const qgate::vk::Shader qgate_vk_mutant_kv_slot_off_fused_qk_norm_rope_f32;
extern const qgate::vk::Shader qgate_vk_mutant_kv_slot_off_fused_qk_norm_rope_f32_dp;
#endif

namespace qgate {
namespace vkf {

inline constexpr int kVkFlashTile = 32;  // fused_attention.comp's TILE
enum class Attn { eager, flash_f32, flash_f16, flash_bf16 };

namespace {

const char* fail(std::string msg) { return launch_failed(std::move(msg)); }

#define QGATE_VK_PICK(variant, tag) (rt->pick(vk::ShaderPair{&qgate_vk_##variant##_##tag, &qgate_vk_##variant##_dp_##tag}))

// A device buffer for one tensor: an input (copied up), or an output mirrored with `red`
// guard bytes on each side (copied up, and back after the dispatch).
struct Tensor {
  vk::Runtime* rt;
  vk::Buffer b;
  uint8_t* host = nullptr;  // output: the start of the mirrored region
  size_t bytes = 0;
  Tensor(vk::Runtime* r, const void* src, size_t n_bytes) : rt(r), bytes(n_bytes) {
    b = rt->alloc((std::max<size_t>(n_bytes, 4) + 3) / 4 * 4);
    if (b.map && n_bytes && src) std::memcpy(b.map, src, n_bytes);
  }
  Tensor(vk::Runtime* r, void* out, size_t n_bytes, size_t red) : rt(r) {
    host = static_cast<uint8_t*>(out) - red;
    bytes = n_bytes + 2 * red;
    b = rt->alloc((bytes + 3) / 4 * 4);
    if (b.map) std::memcpy(b.map, host, bytes);
  }
  ~Tensor() { rt->release(b); }
  void back() const { std::memcpy(host, b.map, bytes); }
};

vk::Runtime* runtime() {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) fail("vulkan unavailable: " + why);
  return rt;
}

void grid(uint64_t groups, uint32_t& gx, uint32_t& gy) {
  gx = static_cast<uint32_t>(std::min<uint64_t>(groups, 65535));
  gy = static_cast<uint32_t>((groups + gx - 1) / (gx ? gx : 1));
  if (gx == 0) gx = gy = 1;
}

template <class... T>
bool all_mapped(const T&... t) {
  return (... && (t.b.map != nullptr));
}

}  // namespace

const char* launch_silu_mul(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.rows * a.n >= (int64_t{1} << 31)) return "silu_mul: more than 2^31 elements";
  vk::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t n = static_cast<size_t>(a.rows * a.n);
  Tensor g(rt, a.x, 4 * n), u(rt, a.res, 4 * n), o(rt, a.out0, 4 * n, a.red_out0);
  if (!all_mapped(g, u, o)) return "vulkan: buffer allocation failed";
  // One row of n: gate and up in their own buffers (fused_silu_mul.comp's cols, stride, u_off).
  const uint32_t push[5] = {static_cast<uint32_t>(n), static_cast<uint32_t>(a.red_out0 / 4), static_cast<uint32_t>(n), 0,
                            0};
  uint32_t gx, gy;
  grid((n + 63) / 64, gx, gy);
  std::vector<vk::Buffer*> binds = {&g.b, &u.b, &o.b};
  if (std::string e = rt->dispatch(QGATE_VK_PICK(fused_silu_mul, f32), binds, push, gx, gy); !e.empty()) return fail(e);
  o.back();
  return nullptr;
}

const char* launch_add_rmsnorm(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.rows * a.n >= (int64_t{1} << 31)) return "add_rmsnorm: more than 2^31 elements";
  vk::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t n = static_cast<size_t>(a.rows * a.n);
  Tensor x(rt, a.x, 4 * n), r(rt, a.res, 4 * n), w(rt, a.w, 4 * static_cast<size_t>(a.n)),
      y(rt, a.out0, 4 * n, a.red_out0), h(rt, a.out1, 4 * n, a.red_out1);
  if (!all_mapped(x, r, w, y, h)) return "vulkan: buffer allocation failed";
  struct {
    uint32_t n, rows, off_y, off_h;
    float eps, inv_n;
  } push{static_cast<uint32_t>(a.n), static_cast<uint32_t>(a.rows), static_cast<uint32_t>(a.red_out0 / 4),
         static_cast<uint32_t>(a.red_out1 / 4), a.eps, 1.0f / static_cast<float>(a.n)};
  uint32_t gx, gy;
  grid(static_cast<uint64_t>(a.rows), gx, gy);
  std::vector<vk::Buffer*> binds = {&x.b, &r.b, &w.b, &y.b, &h.b};
  if (std::string e = rt->dispatch(QGATE_VK_PICK(fused_add_rmsnorm, f32), binds, &push, gx, gy); !e.empty()) return fail(e);
  y.back();
  h.back();
  return nullptr;
}

const char* launch_qk_norm_rope(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.d > 4096) return "qk_norm_rope: this kernel takes head dims up to 4096";
  for (int64_t t = 0; t < a.tokens; ++t) {
    // rope_sincos's reduction is exact for theta < 4096 (freq <= 1): positions below 4096.
    if (a.pos[t] >= 4096) return "qk_norm_rope: positions from 4096 on are outside this kernel's sin/cos range";
  }
  vk::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const int64_t d = a.d;
  const std::vector<float> freq = rope_frequencies(a.rope_base, d);  // as the CPU kernel forms them
  const size_t qn = static_cast<size_t>(a.tokens * a.n_head * d), kn = static_cast<size_t>(a.tokens * a.n_head_kv * d);
  const size_t cache = static_cast<size_t>(a.n_head_kv * a.kv_cap * d);
  Tensor q(rt, a.q, 4 * qn), k(rt, a.k, 4 * kn), v(rt, a.v, 4 * kn), wq(rt, a.w_q, 4 * static_cast<size_t>(d)),
      wk(rt, a.w_k, 4 * static_cast<size_t>(d)), pos(rt, a.pos, 4 * static_cast<size_t>(a.tokens)),
      fr(rt, freq.data(), 4 * freq.size()), oq(rt, a.out0, 4 * qn, a.red_out0), kc(rt, a.k_cache, 4 * cache, a.red_k),
      vc(rt, a.v_cache, 4 * cache, a.red_v);
  if (!all_mapped(q, k, v, wq, wk, pos, fr, oq, kc, vc)) return "vulkan: buffer allocation failed";
  struct {
    uint32_t tokens, n_head, n_head_kv, d, kv_cap, neox, off_q, off_k, off_v;
    float eps, inv_d;
  } push{static_cast<uint32_t>(a.tokens), static_cast<uint32_t>(a.n_head), static_cast<uint32_t>(a.n_head_kv),
         static_cast<uint32_t>(d), static_cast<uint32_t>(a.kv_cap), a.rope_mode == RopeMode::neox ? 1u : 0u,
         static_cast<uint32_t>(a.red_out0 / 4), static_cast<uint32_t>(a.red_k / 4), static_cast<uint32_t>(a.red_v / 4),
         a.eps, 1.0f / static_cast<float>(d)};
  uint32_t gx, gy;
  grid(static_cast<uint64_t>(a.tokens * (a.n_head + a.n_head_kv)), gx, gy);
  std::vector<vk::Buffer*> binds = {&q.b, &k.b, &v.b, &wq.b, &wk.b, &pos.b, &fr.b, &oq.b, &kc.b, &vc.b};
  const vk::Shader* shader = &QGATE_VK_PICK(fused_qk_norm_rope, f32);
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_kv_slot_off))
    shader = &rt->pick(vk::ShaderPair{&qgate_vk_mutant_kv_slot_off_fused_qk_norm_rope_f32,
                                      &qgate_vk_mutant_kv_slot_off_fused_qk_norm_rope_f32_dp});
#endif
  if (std::string e = rt->dispatch(*shader, binds, &push, gx, gy); !e.empty()) return fail(e);
  oq.back();
  kc.back();
  vc.back();
  return nullptr;
}

const char* launch_moe_route(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.n > 256 || a.top_k > 8) return "moe_route: this kernel takes at most 256 experts and top_k <= 8";
  vk::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const size_t k = static_cast<size_t>(a.rows * a.top_k);
  Tensor l(rt, a.x, 4 * static_cast<size_t>(a.rows * a.n)), w(rt, a.out0, 4 * k, a.red_out0), ids(rt, a.ids, 4 * k, a.red_ids);
  if (!all_mapped(l, w, ids)) return "vulkan: buffer allocation failed";
  const uint32_t push[5] = {static_cast<uint32_t>(a.rows), static_cast<uint32_t>(a.n), static_cast<uint32_t>(a.top_k),
                            static_cast<uint32_t>(a.red_out0 / 4), static_cast<uint32_t>(a.red_ids / 4)};
  uint32_t gx, gy;
  grid((static_cast<uint64_t>(a.rows) + 63) / 64, gx, gy);
  std::vector<vk::Buffer*> binds = {&l.b, &w.b, &ids.b};
  if (std::string e = rt->dispatch(QGATE_VK_PICK(fused_moe_route, f32), binds, push, gx, gy); !e.empty()) return fail(e);
  w.back();
  ids.back();
  return nullptr;
}

template <Attn V>
const char* launch_attention(const FusedArgs& a) {
  if (const char* e = fused_args_error(a)) return e;
  if (a.d > 256) return "attention: this kernel takes head dims up to 256";
  vk::Runtime* rt = runtime();
  if (!rt) return launch_failure().c_str();
  const vk::Shader* shader = V == Attn::eager       ? &QGATE_VK_PICK(fused_attention, eager)
                             : V == Attn::flash_f32 ? &QGATE_VK_PICK(fused_attention, pf32)
                             : V == Attn::flash_f16 ? &QGATE_VK_PICK(fused_attention, pf16)
                                                    : &QGATE_VK_PICK(fused_attention, pbf16);
#ifdef QGATE_MUTANTS
  if (V == Attn::flash_f32 && QGATE_MUTANT_ON(vk_flash_rescale_dropped))
    shader = &rt->pick(vk::ShaderPair{&qgate_vk_mutant_rescale_dropped_fused_attention_pf32,
                                      &qgate_vk_mutant_rescale_dropped_fused_attention_pf32_dp});
  if (V == Attn::flash_bf16 && QGATE_MUTANT_ON(vk_flash_p_fp8))
    shader = &rt->pick(vk::ShaderPair{&qgate_vk_mutant_p_fp8_fused_attention_pbf16,
                                      &qgate_vk_mutant_p_fp8_fused_attention_pbf16_dp});
#endif
  const size_t rows = static_cast<size_t>(a.tokens * a.n_head), d = static_cast<size_t>(a.d);
  const size_t cache = static_cast<size_t>(a.n_head_kv * a.kv_cap) * d;
  Tensor q(rt, a.q, 4 * rows * d), k(rt, a.k_cache, 4 * cache), v(rt, a.v_cache, 4 * cache),
      o(rt, a.out0, 4 * rows * d, a.red_out0),
      scratch(rt, nullptr, V == Attn::eager ? 4 * rows * static_cast<size_t>(a.kv_len) : 0);
  if (!all_mapped(q, k, v, o, scratch)) return "vulkan: buffer allocation failed";
  struct {
    uint32_t tokens, n_head, n_head_kv, d, kv_len, kv_cap, off;
    float scale;
  } push{static_cast<uint32_t>(a.tokens), static_cast<uint32_t>(a.n_head), static_cast<uint32_t>(a.n_head_kv),
         static_cast<uint32_t>(a.d), static_cast<uint32_t>(a.kv_len), static_cast<uint32_t>(a.kv_cap),
         static_cast<uint32_t>(a.red_out0 / 4), a.scale};
  uint32_t gx, gy;
  grid((rows + 63) / 64, gx, gy);
  std::vector<vk::Buffer*> binds = {&q.b, &k.b, &v.b, &o.b, &scratch.b};
  if (std::string e = rt->dispatch(*shader, binds, &push, gx, gy); !e.empty()) return fail(e);
  o.back();
  return nullptr;
}

namespace {

// The workgroup RMSNorm: a stride of ceil(n/64) per invocation and a 6-level tree.
constexpr Depth depth_wg_norm{1, 64, 6};
constexpr Depth depth_seq{};

bool device_flushes_denormals() {
  std::string why;
  const vk::Runtime* rt = vk::Runtime::instance(why);
  return rt && !rt->info().denorm_preserve_f32;
}

}  // namespace
}  // namespace vkf

void add_vulkan_fused_kernels(std::vector<KernelInfo>& v) {
  using namespace vkf;
  const FusedMath math = vulkan_math(device_flushes_denormals());
#define QGATE_FUSED_vulkan(stem, op, fn, depth, tile_k, p) \
  v.push_back(fused_kernel(#stem, BackendId::vulkan, Op::op, from_fused<fn>, depth, tile_k, OutType::p, math));
#include "kernels/fused.inc"
#undef QGATE_FUSED_vulkan
}

}  // namespace qgate
