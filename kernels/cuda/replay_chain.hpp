// A decode-step chain on CUDA for the replay probe: RoPE at a device-side position with a
// KV-cache append, q8_1 quantization of the rotated vector, the q8_0 int8-dot mat-vec on
// it, and a sum over the cache rows 0..pos. Two independent copies of the state: one run
// eagerly every step, one captured once into a CUDA graph and replayed with new inputs
// written to its buffers.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qgate::cuk {

struct ChainOutputs {
  std::vector<uint32_t> y;      // mat-vec output bits
  std::vector<uint32_t> kvsum;  // cache-sum output bits
};

class DecodeChain {
 public:
  // d: vector width (a multiple of 32), n: weight rows, max_pos: cache rows.
  static std::unique_ptr<DecodeChain> create(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                             std::string& err);
  std::string eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out);
  // Capture the chain once (a position passed by value, as the planted mutant does, is baked here).
  std::string capture(uint32_t pos_at_capture);
  std::string replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out);
  ~DecodeChain();
  struct State;

 private:
  DecodeChain() = default;
  std::string enqueue(State& st, uint32_t pos_value);
  uint32_t d_ = 0, n_ = 0, max_pos_ = 0;
  std::unique_ptr<State> eager_, replay_;
  struct Captured;
  std::unique_ptr<Captured> graph_;
};

}  // namespace qgate::cuk
