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
namespace {

struct State {
  vk::Runtime* rt = nullptr;
  vk::Buffer w, x, pos, xr, kv, y, s;
  ~State() {
    if (rt)
      for (vk::Buffer* b : {&w, &x, &pos, &xr, &kv, &y, &s}) rt->release(*b);
  }
};

const vk::Shader& rope_shader() {
#ifdef QGATE_MUTANTS
  if (QGATE_MUTANT_ON(vk_replay_position_by_value)) return qgate_vk_mutant_pos_by_value_rope_kv_chain;
#endif
  return qgate_vk_rope_kv_chain;
}

std::vector<vk::Dispatch> chain(State& st, uint32_t d, uint32_t n, uint32_t pos_push) {
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

void write_inputs(State& st, const std::vector<float>& x, uint32_t pos) {
  std::memcpy(st.x.map, x.data(), x.size() * 4);
  std::memcpy(st.pos.map, &pos, 4);
}

void read_outputs(const State& st, uint32_t d, uint32_t n, ChainOutputs& out) {
  out.y.resize(n);
  out.kvsum.resize(d);
  std::memcpy(out.y.data(), st.y.map, n * 4);
  std::memcpy(out.kvsum.data(), st.s.map, d * 4);
}

class VulkanChain final : public DecodeChain {
 public:
  VulkanChain(uint32_t d, uint32_t n, uint32_t max_pos) : DecodeChain(d, n, max_pos) {}
  ~VulkanChain() override {
    if (recording_) replay_.rt->release(recording_);
  }
  std::string init(vk::Runtime* rt, uint64_t seed);
  std::string eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) override;
  std::string capture(uint32_t pos_at_capture) override;
  std::string replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) override;

 private:
  State eager_, replay_;
  vk::Recording* recording_ = nullptr;
};

std::string VulkanChain::init(vk::Runtime* rt, uint64_t seed) {
  const std::vector<uint8_t> w = weights(d_, n_, seed);
  for (State* st : {&eager_, &replay_}) {
    State& s = *st;
    s.rt = rt;
    s.w = rt->alloc((w.size() + 3) / 4 * 4);
    s.x = rt->alloc(d_ * 4);
    s.pos = rt->alloc(4);
    s.xr = rt->alloc(d_ * 4);
    s.kv = rt->alloc(static_cast<size_t>(max_pos_) * d_ * 4);
    s.y = rt->alloc(n_ * 4);
    s.s = rt->alloc(d_ * 4);
    for (vk::Buffer* b : {&s.w, &s.x, &s.pos, &s.xr, &s.kv, &s.y, &s.s})
      if (!b->map) return "vulkan: buffer allocation failed";
    std::memcpy(s.w.map, w.data(), w.size());
    std::memset(s.kv.map, 0, static_cast<size_t>(max_pos_) * d_ * 4);
  }
  return {};
}

std::string VulkanChain::eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (auto e = check_step(x, pos); !e.empty()) return e;
  write_inputs(eager_, x, pos);
  const auto steps = chain(eager_, d_, n_, pos);
  vk::Recording* rec = nullptr;
  std::string err = eager_.rt->record(steps, rec);
  if (err.empty()) err = eager_.rt->submit(rec);
  eager_.rt->release(rec);
  if (err.empty()) read_outputs(eager_, d_, n_, out);
  return err;
}

std::string VulkanChain::capture(uint32_t pos_at_capture) {
  const auto steps = chain(replay_, d_, n_, pos_at_capture);
  return replay_.rt->record(steps, recording_);
}

std::string VulkanChain::replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) {
  if (!recording_) return "replay before capture";
  if (auto e = check_step(x, pos); !e.empty()) return e;
  write_inputs(replay_, x, pos);
  const std::string err = replay_.rt->submit(recording_);
  if (err.empty()) read_outputs(replay_, d_, n_, out);
  return err;
}

}  // namespace

std::unique_ptr<DecodeChain> make_decode_chain(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                               std::string& err) {
  vk::Runtime* rt = vk::Runtime::instance(err);
  if (!rt) return nullptr;
  if (err = DecodeChain::check_shape(d); !err.empty()) return nullptr;
  auto c = std::make_unique<VulkanChain>(d, n, max_pos);
  if (err = c->init(rt, seed); !err.empty()) return nullptr;
  return c;
}

}  // namespace qgate::vkk
