#include "kernels/vulkan/bench_vk.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <vector>

#include "core/guarded.hpp"
#include "backends/vulkan/vk_runtime.hpp"
#include "core/launch_adapters.hpp"
#include "kernels/vulkan/vk_code.hpp"

extern const qgate::vk::Shader qgate_vk_stream_read_all;

namespace qgate::vkk {
const char* matvec(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
const char* matvec_q8(const KernelInfo&, const QTensor&, const float*, int64_t, GuardedBuffer&);
namespace {

// Device-local buffers released with the scope.
struct Pool {
  vk::Runtime* rt;
  std::deque<vk::Buffer> bufs;  // a deque: make() hands out pointers that must stay valid
  explicit Pool(vk::Runtime* r) : rt(r) {}
  ~Pool() {
    for (vk::Buffer& b : bufs) rt->release(b);
  }
  vk::Buffer* make(size_t bytes) {
    bufs.push_back(rt->alloc_device((bytes + 15) / 16 * 16));
    return bufs.back().handle ? &bufs.back() : nullptr;
  }
};

std::vector<uint8_t> push_words(std::initializer_list<uint32_t> v) {
  std::vector<uint8_t> p(v.size() * 4);
  std::memcpy(p.data(), v.begin(), p.size());
  return p;
}

// Runs the dispatches in one timed command buffer; the first `warm` are dropped. The
// same command buffer is first resubmitted for 300 ms of wall time: a GPU left idle while
// the host prepared the next case has lowered its clocks, and a few milliseconds of work
// do not bring them back (measured on the H200: the same kernel 4x slower when timed
// right after two seconds of host work).
// independent: no barriers, one interval over the whole chain (warm-up included, after
// the 300 ms of resubmission), divided by the number of dispatches.
std::string time_steps(vk::Runtime* rt, const std::vector<vk::Dispatch>& steps, size_t warm, BenchTiming& out,
                       bool independent = false) {
  vk::Recording* rec = nullptr;
  std::string err =
      rt->record(steps, rec, independent ? vk::Runtime::Timing::independent : vk::Runtime::Timing::each);
  const auto t0 = std::chrono::steady_clock::now();
  while (err.empty() && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(300)) err = rt->submit(rec);
  if (err.empty()) err = rt->submit(rec);
  std::vector<double> ns;
  if (err.empty()) err = rt->timestamps(rec, ns);
  rt->release(rec);
  if (!err.empty()) return err;
  if (independent) {
    if (ns.size() != 1 || steps.empty()) return "no timed chain";
    out.median_ns = out.min_ns = ns[0] / static_cast<double>(steps.size());
    out.samples = static_cast<int>(steps.size());
    return {};
  }
  ns.erase(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(std::min(warm, ns.size())));
  if (ns.empty()) return "no timed dispatch";
  std::sort(ns.begin(), ns.end());
  out.median_ns = ns[ns.size() / 2];
  out.min_ns = ns.front();
  out.samples = static_cast<int>(ns.size());
  return {};
}

}  // namespace

std::string bench_stream(size_t bytes, int reps, BenchTiming& out, int copies, bool independent) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return "vulkan unavailable: " + why;
  if (copies < 1 || copies * (reps + 1) > 1000) return "bench: copies x (reps + 1) must be 1..1000 (descriptor sets)";
  Pool pool(rt);
  std::vector<vk::Buffer*> src;
  const std::vector<uint8_t> fill(bytes, 0x5A);  // written once: never-written memory read unstably
  for (int c = 0; c < copies; ++c) {
    src.push_back(pool.make(bytes));
    if (!src.back()) return "device allocation failed";
    if (std::string e = rt->upload(*src.back(), fill.data(), bytes); !e.empty()) return e;
  }
  vk::Buffer* sink = pool.make(1024);
  if (!sink) return "device allocation failed";
  std::vector<vk::Dispatch> steps;
  for (int r = 0; r <= reps; ++r)
    for (vk::Buffer* b : src)
      steps.push_back({&qgate_vk_stream_read_all, {b, sink}, push_words({static_cast<uint32_t>(bytes / 16)}), 8192, 1, 1});
  return time_steps(rt, steps, static_cast<size_t>(copies), out, independent);
}

const char* bench_unsupported(const KernelInfo& k) {
  if (k.backend != BackendId::vulkan || k.op != Op::matmul || k.max_m == 0) return "not a Vulkan mat-vec";
  if (k.launch != from_weight<matvec> && k.launch != from_weight<matvec_q8>)
    return "the bench drives matvec.comp and matvec_q8.comp only";
  return nullptr;
}

std::string bench_matvec(const KernelInfo& k, const QTensor& w, const float* x, int copies, int reps,
                         BenchTiming& out, bool independent) {
  std::string why;
  vk::Runtime* rt = vk::Runtime::instance(why);
  if (!rt) return "vulkan unavailable: " + why;
  if (const char* why_not = bench_unsupported(k)) return k.name + ": " + why_not;
  const Code& code = *static_cast<const Code*>(k.device_code);
  if (copies < 1 || copies * (reps + 1) > 1000) return "bench: copies x (reps + 1) must be 1..1000 (descriptor sets)";
  Pool pool(rt);
  std::vector<vk::Buffer*> ws;
  for (int c = 0; c < copies; ++c) {
    vk::Buffer* b = pool.make(w.bytes.size() + 16);  // padded as launch.cpp pads (make() rounds to 16)
    if (!b) return "device allocation failed (weight copy " + std::to_string(c) + ")";
    if (std::string e = rt->upload(*b, w.bytes.data(), w.bytes.size()); !e.empty()) return e;
    ws.push_back(b);
  }
  vk::Buffer* table = nullptr;
  if (!code.table.empty()) {
    table = pool.make(code.table.size());
    if (!table) return "device allocation failed (table)";
    if (std::string e = rt->upload(*table, code.table.data(), code.table.size()); !e.empty()) return e;
  }
  vk::Buffer* xb = pool.make(static_cast<size_t>(w.k) * 4);
  vk::Buffer* ob = pool.make(static_cast<size_t>(w.n) * 4 * 8);
  if (!xb || !ob) return "device allocation failed";
  if (std::string e = rt->upload(*xb, x, static_cast<size_t>(w.k) * 4); !e.empty()) return e;
  // M = 1: the kernel's one-row build, as its launch picks it (the f32 path has none)
  const vk::Shader& shader = code.one_row.plain ? rt->pick(code.one_row) : rt->pick(code.shaders);
  const uint32_t n = static_cast<uint32_t>(w.n), kk = static_cast<uint32_t>(w.k);
  std::vector<vk::Buffer*> binds;
  std::vector<uint8_t> push;
  uint32_t groups = 0;
  if (k.prec.act == ActQuant::none) {  // matvec.comp: {W, X, O}
    binds = {nullptr, xb, ob};
    push = push_words({n, kk, 1u, 0u});
    groups = n;
  } else {  // matvec_q8.comp: quantize once, then {W, A, AD, AS, O}
    vk::Buffer* ab = pool.make(w.k);
    vk::Buffer* adb = pool.make(static_cast<size_t>(w.k / code.act_block) * 4);
    vk::Buffer* asb = pool.make(static_cast<size_t>(w.k / 16) * 4);
    if (!ab || !adb || !asb) return "device allocation failed";
    const uint32_t blocks = static_cast<uint32_t>(w.k / code.act_block);
    std::vector<vk::Buffer*> qb = {xb, ab, adb, asb};
    if (std::string e = rt->dispatch(rt->pick(code.quant), qb, &blocks, blocks); !e.empty()) return e;
    binds = {nullptr, ab, adb, asb, ob};
    push = push_words({n, kk, 1u, 0u, 0u});
    groups = static_cast<uint32_t>((n + kMatvecQ8RowsPerGroup - 1) / kMatvecQ8RowsPerGroup);
  }
  if (table) binds.push_back(table);
  if (groups > 65535) return "bench: more than 65535 workgroups";
  std::vector<vk::Dispatch> steps;
  for (int r = 0; r <= reps; ++r)
    for (int c = 0; c < copies; ++c) {
      binds[0] = ws[static_cast<size_t>(c)];
      steps.push_back({&shader, binds, push, groups, 1, 1});
    }
  out.stats = rt->shader_stats(shader);
  return time_steps(rt, steps, static_cast<size_t>(copies), out, independent);
}

}  // namespace qgate::vkk
