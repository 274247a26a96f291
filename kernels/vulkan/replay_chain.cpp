#include "kernels/vulkan/replay_chain.hpp"

#include <cstring>

#include "backends/vulkan/vk_runtime.hpp"
#include "kernels/mutant.hpp"

extern const qgate::vk::Shader qgate_vk_rope_kv_chain;
extern const qgate::vk::Shader qgate_vk_kv_sum_chain;
extern const qgate::vk::Shader qgate_vk_matvec_f32_q8_0;
#ifdef QGATE_MUTANTS  // mutant build only
extern const qgate::vk::Shader qgate_vk_mutant_pos_by_value_rope_kv_chain;
#endif

namespace qgate::vkk {

struct DecodeChain::State {
  vk::Runtime* rt = nullptr;
  vk::Buffer w, x, pos, xr, kv, y, s;
  ~State() {
    for (vk::Buffer* b : {&w, &x, &pos, &xr, &kv, &y, &s}) rt->release(*b);
  }
};

namespace {
const vk::Shader& rope_shader() {
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_replay_position_by_value)) return qgate_vk_mutant_pos_by_value_rope_kv_chain;
#endif
  return qgate_vk_rope_kv_chain;
}

std::vector<vk::Dispatch> chain(DecodeChain::State& st, uint32_t d, uint32_t n, uint32_t pos_push) {
  std::vector<vk::Dispatch> v(3);
  const uint32_t rope_push[2] = {d, pos_push};
  v[0] = {&rope_shader(), {&st.x, &st.pos, &st.xr, &st.kv}, {}, (d / 2 + 63) / 64, 1, 1};
  v[0].push.assign(reinterpret_cast<const uint8_t*>(rope_push), reinterpret_cast<const uint8_t*>(rope_push) + 8);
  const uint32_t mv_push[4] = {n, d, 1, 0};
  v[1] = {&qgate_vk_matvec_f32_q8_0, {&st.w, &st.xr, &st.y}, {}, n, 1, 1};
  v[1].push.assign(reinterpret_cast<const uint8_t*>(mv_push), reinterpret_cast<const uint8_t*>(mv_push) + 16);
  v[2] = {&qgate_vk_kv_sum_chain, {&st.kv, &st.pos, &st.s}, {}, (d + 63) / 64, 1, 1};
  v[2].push.assign(reinterpret_cast<const uint8_t*>(&d), reinterpret_cast<const uint8_t*>(&d) + 4);
  return v;
}

void write_inputs(DecodeChain::State& st, const std::vector<float>& x, uint32_t pos) {
  std::memcpy(st.x.map, x.data(), x.size() * 4);
  std::memcpy(st.pos.map, &pos, 4);
}

void read_outputs(const DecodeChain::State& st, uint32_t d, uint32_t n, ChainOutputs& out) {
  out.y.resize(n);
  out.kvsum.resize(d);
  std::memcpy(out.y.data(), st.y.map, n * 4);
  std::memcpy(out.kvsum.data(), st.s.map, d * 4);
}
}  // namespace

std::unique_ptr<DecodeChain> DecodeChain::create(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                                 std::string& err) {
  vk::Runtime* rt = vk::Runtime::instance(err);
  if (!rt) return nullptr;
  if (d % 32 || d == 0) {
    err = "the chain needs d a multiple of 32 (q8_0 blocks)";
    return nullptr;
  }
  std::unique_ptr<DecodeChain> c(new DecodeChain());
  c->d_ = d;
  c->n_ = n;
  c->max_pos_ = max_pos;
  // q8_0 weights: d = 1/16 (fp16 0x2C00), codes from a SplitMix64 stream.
  c->weights_.resize(static_cast<size_t>(n) * (d / 32) * 34);
  uint64_t z = seed;
  for (size_t b = 0; b < c->weights_.size(); b += 34) {
    c->weights_[b] = 0x00;
    c->weights_[b + 1] = 0x2C;
    for (int i = 0; i < 32; ++i) {
      z += 0x9E3779B97F4A7C15ull;
      uint64_t t = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      c->weights_[b + 2 + i] = static_cast<uint8_t>((t ^ (t >> 27)) >> 32);
    }
  }
  for (auto* st : {&c->eager_, &c->replay_}) {
    *st = std::make_unique<State>();
    State& s = **st;
    s.rt = rt;
    s.w = rt->alloc((c->weights_.size() + 3) / 4 * 4);
    s.x = rt->alloc(d * 4);
    s.pos = rt->alloc(4);
    s.xr = rt->alloc(d * 4);
    s.kv = rt->alloc(static_cast<size_t>(max_pos) * d * 4);
    s.y = rt->alloc(n * 4);
    s.s = rt->alloc(d * 4);
    for (vk::Buffer* b : {&s.w, &s.x, &s.pos, &s.xr, &s.kv, &s.y, &s.s})
      if (!b->map) {
        err = "vulkan: buffer allocation failed";
        return nullptr;
      }
    std::memcpy(s.w.map, c->weights_.data(), c->weights_.size());
    std::memset(s.kv.map, 0, static_cast<size_t>(max_pos) * d * 4);
  }
  return c;
}

std::string DecodeChain::eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (pos >= max_pos_) return "position past the cache";
  write_inputs(*eager_, x, pos);
  const auto steps = chain(*eager_, d_, n_, pos);
  vk::Recording* rec = nullptr;
  std::string err = eager_->rt->record(steps, rec);
  if (err.empty()) err = eager_->rt->submit(rec);
  eager_->rt->release(rec);
  if (err.empty()) read_outputs(*eager_, d_, n_, out);
  return err;
}

std::string DecodeChain::capture(uint32_t pos_at_capture) {
  const auto steps = chain(*replay_, d_, n_, pos_at_capture);
  vk::Recording* rec = nullptr;
  const std::string err = replay_->rt->record(steps, rec);
  recording_ = rec;
  return err;
}

std::string DecodeChain::replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (!recording_) return "replay before capture";
  if (pos >= max_pos_) return "position past the cache";
  write_inputs(*replay_, x, pos);
  const std::string err = replay_->rt->submit(static_cast<vk::Recording*>(recording_));
  if (err.empty()) read_outputs(*replay_, d_, n_, out);
  return err;
}

DecodeChain::~DecodeChain() {
  if (recording_) replay_->rt->release(static_cast<vk::Recording*>(recording_));
}

}  // namespace qgate::vkk
