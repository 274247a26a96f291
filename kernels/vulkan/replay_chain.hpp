// A small decode-step chain on Vulkan for the replay probe: RoPE at a device-side position
// with a KV-cache append (rope_kv.comp), a q8_0 mat-vec on the rotated vector
// (matvec.comp), and a sum over the cache rows 0..pos (kv_sum.comp). Two independent
// copies of the state: one recorded afresh every step (eager), one recorded once and
// resubmitted with new inputs written to its buffers (replay).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qgate::vkk {

struct ChainOutputs {
  std::vector<uint32_t> y;      // mat-vec output bits
  std::vector<uint32_t> kvsum;  // cache-sum output bits
};

class DecodeChain {
 public:
  // d: vector width (even), n: weight rows, max_pos: cache rows.
  static std::unique_ptr<DecodeChain> create(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                             std::string& err);
  std::string eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out);
  // Record the chain once (position as the buffers hold it now: the planted mutant bakes it).
  std::string capture(uint32_t pos_at_capture);
  std::string replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out);
  ~DecodeChain();
  struct State;

 private:
  DecodeChain() = default;
  uint32_t d_ = 0, n_ = 0, max_pos_ = 0;
  std::unique_ptr<State> eager_, replay_;
  void* recording_ = nullptr;
  std::vector<uint8_t> weights_;
};

}  // namespace qgate::vkk
