#include "kernels/cuda/replay_chain.hpp"

#include <utility>

#include "backends/cuda/cuda_runtime.hpp"
#include "kernels/cuda/launchers.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cuk {
namespace {

cu::Runtime* runtime() {
  std::string why;
  return cu::Runtime::instance(why);
}

struct State {
  cu::DeviceBuffer w, x, pos, xr, xq, kv, y, s;
};

std::string inputs(State& st, const std::vector<float>& x, const uint32_t& pos) {
  if (auto e = st.x.upload(x.data(), x.size() * 4); !e.empty()) return e;
  return st.pos.upload(&pos, 4);
}

std::string outputs(State& st, uint32_t d, uint32_t n, ChainOutputs& out) {
  out.y.resize(n);
  out.kvsum.resize(d);
  if (auto e = st.y.download(out.y.data(), n * 4); !e.empty()) return e;
  if (auto e = st.s.download(out.kvsum.data(), d * 4); !e.empty()) return e;
  return runtime()->sync("decode chain");
}

class CudaChain final : public DecodeChain {
 public:
  CudaChain(uint32_t d, uint32_t n, uint32_t max_pos) : DecodeChain(d, n, max_pos) {}
  std::string init(uint64_t seed);
  std::string eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) override;
  std::string capture(uint32_t pos_at_capture) override;
  std::string replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) override;

 private:
  std::string enqueue(State& st, uint32_t pos_value);
  State eager_, replay_;
  std::unique_ptr<cu::Graph> graph_;
};

std::string CudaChain::init(uint64_t seed) {
  const std::vector<uint8_t> w = weights(d_, n_, seed);
  for (State* st : {&eager_, &replay_}) {
    State& s = *st;
    const std::pair<cu::DeviceBuffer*, size_t> bufs[] = {
        {&s.w, w.size()},        {&s.x, size_t{d_} * 4},        {&s.pos, 4},
        {&s.xr, size_t{d_} * 4}, {&s.xq, size_t{d_} / 32 * 36}, {&s.kv, size_t{max_pos_} * d_ * 4},
        {&s.y, size_t{n_} * 4},  {&s.s, size_t{d_} * 4}};
    for (const auto& [buf, bytes] : bufs)
      if (auto err = buf->alloc(bytes); !err.empty()) return err;
    if (auto err = s.w.upload(w.data(), w.size()); !err.empty()) return err;
    if (auto err = s.kv.fill(0, s.kv.bytes()); !err.empty()) return err;
  }
  return runtime()->sync("chain set-up");
}

// The chain's launches on the runtime's stream (captured, when a capture is open).
std::string CudaChain::enqueue(State& st, uint32_t pos_value) {
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

std::string CudaChain::eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (auto e = check_step(x, pos); !e.empty()) return e;
  if (auto e = inputs(eager_, x, pos); !e.empty()) return e;
  if (auto e = enqueue(eager_, pos); !e.empty()) return e;
  return outputs(eager_, d_, n_, out);
}

std::string CudaChain::capture(uint32_t pos_at_capture) {
  cu::Runtime* rt = runtime();
  if (auto e = rt->sync("before capture"); !e.empty()) return e;
  graph_ = std::make_unique<cu::Graph>();
  if (auto e = graph_->begin(*rt); !e.empty()) return e;
  std::string err = enqueue(replay_, pos_at_capture);
  const std::string end = graph_->end(*rt);  // always close the capture
  return err.empty() ? end : err;
}

std::string CudaChain::replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (!graph_ || !graph_->ready()) return "replay before capture";
  if (auto e = check_step(x, pos); !e.empty()) return e;
  if (auto e = inputs(replay_, x, pos); !e.empty()) return e;
  if (auto e = graph_->launch(*runtime()); !e.empty()) return e;
  return outputs(replay_, d_, n_, out);
}

}  // namespace

std::unique_ptr<DecodeChain> make_decode_chain(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                               std::string& err) {
  if (!cu::Runtime::instance(err)) return nullptr;
  if (err = CudaChain::check_shape(d); !err.empty()) return nullptr;
  auto c = std::make_unique<CudaChain>(d, n, max_pos);
  if (err = c->init(seed); !err.empty()) return nullptr;
  return c;
}

}  // namespace qgate::cuk
