#include "kernels/cuda/replay_chain.hpp"

#include <utility>

#include "backends/cuda/cuda_runtime.hpp"
#include "kernels/cuda/launchers.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cuk {

struct DecodeChain::State {
  cu::DeviceBuffer w, x, pos, xr, xq, kv, y, s;
};
struct DecodeChain::Captured {
  cu::Graph graph;
};

namespace {
cu::Runtime* runtime() {
  std::string why;
  return cu::Runtime::instance(why);
}
}  // namespace

std::unique_ptr<DecodeChain> DecodeChain::create(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                                 std::string& err) {
  if (!cu::Runtime::instance(err)) return nullptr;
  if (d % 32 || d == 0) {
    err = "the chain needs d a multiple of 32 (q8_0 and q8_1 blocks)";
    return nullptr;
  }
  std::unique_ptr<DecodeChain> c(new DecodeChain());
  c->d_ = d;
  c->n_ = n;
  c->max_pos_ = max_pos;
  // q8_0 weights: d = 1/16 (fp16 0x2C00), codes from a SplitMix64 stream.
  std::vector<uint8_t> w(static_cast<size_t>(n) * (d / 32) * 34);
  uint64_t z = seed;
  for (size_t b = 0; b < w.size(); b += 34) {
    w[b] = 0x00;
    w[b + 1] = 0x2C;
    for (int i = 0; i < 32; ++i) {
      z += 0x9E3779B97F4A7C15ull;
      const uint64_t t = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      w[b + 2 + i] = static_cast<uint8_t>((t ^ (t >> 27)) >> 32);
    }
  }
  for (auto* st : {&c->eager_, &c->replay_}) {
    *st = std::make_unique<State>();
    State& s = **st;
    const std::pair<cu::DeviceBuffer*, size_t> bufs[] = {
        {&s.w, w.size()},       {&s.x, size_t{d} * 4},        {&s.pos, 4},
        {&s.xr, size_t{d} * 4}, {&s.xq, size_t{d} / 32 * 36}, {&s.kv, size_t{max_pos} * d * 4},
        {&s.y, size_t{n} * 4},  {&s.s, size_t{d} * 4}};
    for (const auto& [buf, bytes] : bufs)
      if (err = buf->alloc(bytes); !err.empty()) return nullptr;
    if (err = s.w.upload(w.data(), w.size()); !err.empty()) return nullptr;
    if (err = s.kv.fill(0, s.kv.bytes()); !err.empty()) return nullptr;
  }
  if (err = runtime()->sync("chain set-up"); !err.empty()) return nullptr;
  return c;
}

// The chain's launches on the runtime's stream (captured, when a capture is open).
std::string DecodeChain::enqueue(State& st, uint32_t pos_value) {
  cu::Runtime* rt = runtime();
  void* s = rt->stream();
  const auto* pos = static_cast<const uint32_t*>(st.pos.ptr());
  auto* xr = static_cast<float*>(st.xr.ptr());
  auto* kv = static_cast<float*>(st.kv.ptr());
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(cuda_replay_position_by_value))
    mutant_rope_kv_pos_by_value(static_cast<const float*>(st.x.ptr()), pos_value, xr, kv, d_, s);
  else
#endif
    rope_kv(static_cast<const float*>(st.x.ptr()), pos, xr, kv, d_, s);
  quantize_q8_1(xr, 1, d_, st.xq.bytes_ptr(), s);
  matvec_q8_0(st.w.bytes_ptr(), st.xq.bytes_ptr(), static_cast<float*>(st.y.ptr()), n_, d_, 1, n_, IqTables{}, s);
  kv_sum(kv, pos, static_cast<float*>(st.s.ptr()), d_, s);
  return rt->launch_error("decode chain");
}

namespace {
std::string inputs(DecodeChain::State& st, const std::vector<float>& x, const uint32_t& pos) {
  if (auto e = st.x.upload(x.data(), x.size() * 4); !e.empty()) return e;
  return st.pos.upload(&pos, 4);
}
std::string outputs(DecodeChain::State& st, uint32_t d, uint32_t n, ChainOutputs& out) {
  out.y.resize(n);
  out.kvsum.resize(d);
  if (auto e = st.y.download(out.y.data(), n * 4); !e.empty()) return e;
  if (auto e = st.s.download(out.kvsum.data(), d * 4); !e.empty()) return e;
  return runtime()->sync("decode chain");
}
}  // namespace

std::string DecodeChain::eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (pos >= max_pos_) return "position past the cache";
  if (x.size() != d_) return "input width is not d";
  if (auto e = inputs(*eager_, x, pos); !e.empty()) return e;
  if (auto e = enqueue(*eager_, pos); !e.empty()) return e;
  return outputs(*eager_, d_, n_, out);
}

std::string DecodeChain::capture(uint32_t pos_at_capture) {
  cu::Runtime* rt = runtime();
  if (auto e = rt->sync("before capture"); !e.empty()) return e;
  graph_ = std::make_unique<Captured>();
  if (auto e = graph_->graph.begin(*rt); !e.empty()) return e;
  std::string err = enqueue(*replay_, pos_at_capture);
  const std::string end = graph_->graph.end(*rt);  // always close the capture
  return err.empty() ? end : err;
}

std::string DecodeChain::replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (!graph_ || !graph_->graph.ready()) return "replay before capture";
  if (pos >= max_pos_) return "position past the cache";
  if (x.size() != d_) return "input width is not d";
  if (auto e = inputs(*replay_, x, pos); !e.empty()) return e;
  if (auto e = graph_->graph.launch(*runtime()); !e.empty()) return e;
  return outputs(*replay_, d_, n_, out);
}

DecodeChain::~DecodeChain() = default;

}  // namespace qgate::cuk
