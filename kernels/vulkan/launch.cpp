// Vulkan launches for the registered kernels: upload the weights (and activations), mirror
// the guarded output region on the device, dispatch, copy the whole region back, so the
// verdict sees device-side writes past the output and unwritten poison.
#include <cstring>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "backends/vulkan/vk_runtime.hpp"
#include "core/kernel.hpp"
#include "kernels/mutant.hpp"
#include "kernels/vulkan/launch_util.hpp"
#include "kernels/vulkan/vk_code.hpp"

#ifdef QGATE_MUTANTS  // mutant build only
extern const qgate::vk::Shader qgate_vk_mutant_crossed_lanes_matvec_f32_q4_0;
extern const qgate::vk::Shader qgate_vk_mutant_rows_past_m_matvec_f32_q6_K;
extern const qgate::vk::Shader qgate_vk_mutant_missing_barrier_gemm_q8dot_q4_K;
extern const qgate::vk::Shader qgate_vk_mutant_single_sweep_matvec_q8_q4_K;
#endif

namespace qgate::vkk {
namespace {

// The codebook of a table format, uploaded as it is; no buffer (and no binding) otherwise.
struct TableBuffer {
  vk::Runtime* rt;
  vk::Buffer b;
  bool used;
  TableBuffer(vk::Runtime* r, std::span<const std::byte> t) : rt(r), used(!t.empty()) {
    if (!used) return;
    b = r->alloc((t.size() + 3) / 4 * 4);
    if (b.map) std::memcpy(b.map, t.data(), t.size());
  }
  ~TableBuffer() {
    if (used) rt->release(b);
  }
  bool ok() const { return !used || b.map; }
  // The shader's last binding (the runtime checks the count against the shader's).
  void bind(std::vector<vk::Buffer*>& binds) {
    if (used) binds.push_back(&b);
  }
};

}  // namespace

const char* dequant(const KernelInfo& k, const QTensor& w, const float*, int64_t, GuardedBuffer& out) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const Code& code = *static_cast<const Code*>(k.device_code);
  const vk::Shader* shader = &rt->pick(code.shaders);
  Scoped wb(rt, w.bytes.size()), ob(rt, out.region_bytes());
  TableBuffer tb(rt, code.table);
  if (!wb.b.map || !ob.b.map || !tb.ok()) return fail("vulkan: buffer allocation failed");
  std::memcpy(wb.b.map, w.bytes.data(), w.bytes.size());
  std::memcpy(ob.b.map, out.region(), out.region_bytes());
  const uint64_t elems = static_cast<uint64_t>(w.n) * static_cast<uint64_t>(w.k);
  const uint32_t push[2] = {static_cast<uint32_t>(elems), static_cast<uint32_t>(out.redzone() / 4)};
  const uint64_t threads = k.prec.out == OutType::f16 ? (elems + 1) / 2 : elems;
  uint32_t gx, gy;
  grid((threads + 63) / 64, gx, gy);
  std::vector<vk::Buffer*> binds = {&wb.b, &ob.b};
  tb.bind(binds);
  if (std::string e = rt->dispatch(*shader, binds, push, gx, gy); !e.empty()) return fail(e);
  std::memcpy(out.region(), ob.b.map, out.region_bytes());
  return nullptr;
}

const char* matvec(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const Code& code = *static_cast<const Code*>(k.device_code);
  const vk::Shader* shader = &rt->pick(code.shaders);
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_crossed_nibble_lanes) && k.format == FormatId::q4_0)
    shader = &qgate_vk_mutant_crossed_lanes_matvec_f32_q4_0;
  if (QGATE_MUTANT_ON(vk_rows_past_m) && k.format == FormatId::q6_K) shader = &qgate_vk_mutant_rows_past_m_matvec_f32_q6_K;
#endif
  constexpr int64_t kRowsPerDispatch = 8;  // the shader keeps 8 accumulators
  // The device buffer has slack past the mirrored region, so a shader writing all 8
  // accumulator rows cannot corrupt memory; the region's after-redzone still sees it.
  const size_t slack = static_cast<size_t>(kRowsPerDispatch * w.n) * 4;
  Scoped wb(rt, w.bytes.size()), xb(rt, static_cast<size_t>(kRowsPerDispatch * w.k) * 4),
      ob(rt, out.region_bytes() + slack);
  TableBuffer tb(rt, code.table);
  if (!wb.b.map || !xb.b.map || !ob.b.map || !tb.ok()) return fail("vulkan: buffer allocation failed");
  std::memcpy(wb.b.map, w.bytes.data(), w.bytes.size());
  std::memcpy(ob.b.map, out.region(), out.region_bytes());
  std::vector<vk::Buffer*> binds = {&wb.b, &xb.b, &ob.b};
  tb.bind(binds);
  for (int64_t m0 = 0; m0 < m; m0 += kRowsPerDispatch) {
    const int64_t rows = std::min(kRowsPerDispatch, m - m0);
    std::memcpy(xb.b.map, x + m0 * w.k, static_cast<size_t>(rows * w.k) * 4);
    const uint32_t push[4] = {static_cast<uint32_t>(w.n), static_cast<uint32_t>(w.k), static_cast<uint32_t>(rows),
                              static_cast<uint32_t>(out.redzone() / 4 + m0 * w.n)};
    uint32_t gx, gy;
    grid(static_cast<uint64_t>(w.n), gx, gy);
    if (std::string e = rt->dispatch(*shader, binds, push, gx, gy); !e.empty()) return fail(e);
  }
  std::memcpy(out.region(), ob.b.map, out.region_bytes());
  return nullptr;
}

const char* run_q8(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out,
                   const vk::Shader* shader, size_t out_slack, const AddDispatches& dispatches) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (w.k % code.act_block) return fail("k is not a multiple of the activation block");
  const size_t elems = static_cast<size_t>(m * w.k);
  // Weights padded: formats.glsl's unaligned word readers load the next word too.
  Scoped wb(rt, (w.bytes.size() + 31) / 16 * 16), xb(rt, elems * 4), ab(rt, elems), adb(rt, elems / code.act_block * 4),
      asb(rt, elems / 16 * 4), ob(rt, out.region_bytes() + out_slack);
  TableBuffer tb(rt, code.table);
  for (const Scoped* b : {&wb, &xb, &ab, &adb, &asb, &ob})
    if (!b->b.map) return fail("vulkan: buffer allocation failed");
  if (!tb.ok()) return fail("vulkan: buffer allocation failed");
  std::memcpy(wb.b.map, w.bytes.data(), w.bytes.size());
  std::memcpy(xb.b.map, x, elems * 4);
  std::memcpy(ob.b.map, out.region(), out.region_bytes());
  std::vector<vk::Dispatch> steps;
  // Mutant: the quantized activations kept from the last call and reused, without quantizing
  // again, when the shape is the same (a cache keyed by the shape, not the data).
  struct ActCache {
    int64_t m = -1, k = -1;
    std::vector<uint8_t> a, ad, as;
  };
  static ActCache cache;
  const bool caching = QGATE_MUTANT_ON(vk_act_cache_by_shape) && k.op == Op::matmul && k.format == FormatId::q8_0 &&
                       k.name.ends_with("_vk") && k.max_m > 0;
  const bool reuse = caching && cache.m == m && cache.k == w.k;
  if (reuse) {
    std::memcpy(ab.b.map, cache.a.data(), cache.a.size());
    std::memcpy(adb.b.map, cache.ad.data(), cache.ad.size());
    std::memcpy(asb.b.map, cache.as.data(), cache.as.size());
  } else {
    vk::Dispatch q{&rt->pick(code.quant), {&xb.b, &ab.b, &adb.b, &asb.b}, {}, 1, 1, 1};
    const uint32_t blocks = static_cast<uint32_t>(elems / code.act_block);
    q.push.resize(4);
    std::memcpy(q.push.data(), &blocks, 4);
    grid(blocks, q.gx, q.gy);
    steps.push_back(q);
  }
  std::vector<vk::Buffer*> binds = {&wb.b, &ab.b, &adb.b, &asb.b, &ob.b};
  tb.bind(binds);
  dispatches(*shader, binds, steps);
  vk::Recording* rec = nullptr;
  std::string err = rt->record(steps, rec);
  if (err.empty()) err = rt->submit(rec);
  rt->release(rec);
  if (!err.empty()) return fail(err);
  if (caching && !reuse) {
    const auto* a = static_cast<const uint8_t*>(ab.b.map);
    const auto* ad = static_cast<const uint8_t*>(adb.b.map);
    const auto* as = static_cast<const uint8_t*>(asb.b.map);
    cache = {m, w.k, std::vector<uint8_t>(a, a + elems), std::vector<uint8_t>(ad, ad + elems / code.act_block * 4),
             std::vector<uint8_t>(as, as + elems / 16 * 4)};
  }
  std::memcpy(out.region(), ob.b.map, out.region_bytes());
  return nullptr;
}

namespace {

template <class T>
std::vector<uint8_t> push_bytes(std::initializer_list<T> v) {
  std::vector<uint8_t> p(v.size() * sizeof(T));
  std::memcpy(p.data(), v.begin(), p.size());
  return p;
}

}  // namespace

void matvec_q8_steps(const Code& code, vk::Runtime* rt, int64_t n, int64_t k, int64_t m, uint32_t out_word,
                     const std::vector<vk::Buffer*>& binds, std::vector<vk::Dispatch>& steps, const vk::Shader* every) {
  const vk::Shader* shader = every ? every : &rt->pick(code.shaders);
  const vk::Shader* one_row = every ? every : &rt->pick(code.one_row);  // dispatches of one activation row
  constexpr int64_t kRows = 8;  // the shader keeps 8 accumulators
  for (int64_t m0 = 0; m0 < m; m0 += kRows) {
    vk::Dispatch d{m - m0 == 1 ? one_row : shader, binds, {}, 1, 1, 1};
    d.push = push_bytes<uint32_t>({static_cast<uint32_t>(n), static_cast<uint32_t>(k),
                                   static_cast<uint32_t>(std::min(kRows, m - m0)),
                                   static_cast<uint32_t>(out_word + m0 * n), static_cast<uint32_t>(m0)});
    grid(static_cast<uint64_t>((n + kMatvecQ8RowsPerGroup - 1) / kMatvecQ8RowsPerGroup), d.gx, d.gy);
    steps.push_back(std::move(d));
  }
}

const char* matvec_q8(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const Code& code = *static_cast<const Code*>(k.device_code);
  const vk::Shader* every = nullptr;  // one shader for every dispatch (a planted defect)
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_single_k_sweep) && k.format == FormatId::q4_K && k.name.ends_with("_vk"))
    every = &qgate_vk_mutant_single_sweep_matvec_q8_q4_K;
#endif
  return run_q8(k, w, x, m, out, &rt->pick(code.shaders), 0,
                [&](const vk::Shader&, const std::vector<vk::Buffer*>& binds, std::vector<vk::Dispatch>& steps) {
                  matvec_q8_steps(code, rt, w.n, w.k, m, static_cast<uint32_t>(out.redzone() / 4), binds, steps, every);
                });
}

const char* gemm_q8(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return fail("vulkan unavailable: " + why);
  const vk::Shader* shader = &rt->pick(static_cast<const Code*>(k.device_code)->shaders);
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_missing_barrier) && k.format == FormatId::q4_K && k.name.ends_with("_vkdot"))
    shader = &qgate_vk_mutant_missing_barrier_gemm_q8dot_q4_K;
#endif
  constexpr int64_t kTile = 32;
  const int64_t gx = (w.n + kTile - 1) / kTile, gy = (m + kTile - 1) / kTile;
  if (gx > 65535 || gy > 65535) return fail("gemm: more than 65535 tiles along one axis");
  return run_q8(k, w, x, m, out, shader, 0, [&](const vk::Shader& s, const std::vector<vk::Buffer*>& binds,
                                                std::vector<vk::Dispatch>& steps) {
    vk::Dispatch d{&s, binds, {}, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1};
    d.push = push_bytes<uint32_t>({static_cast<uint32_t>(w.n), static_cast<uint32_t>(w.k), static_cast<uint32_t>(m),
                                   static_cast<uint32_t>(out.redzone() / 4)});
    steps.push_back(std::move(d));
  });
}

}  // namespace qgate::vkk
