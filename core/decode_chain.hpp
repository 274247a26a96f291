// The replay probe's decode-step chain, as a GPU backend implements it: RoPE at a device-side
// position with a KV-cache append, a q8_0 mat-vec on the rotated vector, and a sum over the
// cache rows 0..pos. Two independent copies of the state: one run eagerly every step, one
// captured once (a CUDA graph, a recorded command buffer) and replayed with new inputs
// written to its buffers. properties/probes.cpp compares the two bit for bit.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace qgate {

struct ChainOutputs {
  std::vector<uint32_t> y;      // mat-vec output bits
  std::vector<uint32_t> kvsum;  // cache-sum output bits
};

class DecodeChain {
 public:
  virtual ~DecodeChain() = default;
  // One step run eagerly on the eager copy of the state.
  virtual std::string eager_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) = 0;
  // Capture the chain once on the replay copy (a position passed by value, as the planted
  // mutants do, is baked here).
  virtual std::string capture(uint32_t pos_at_capture) = 0;
  virtual std::string replay_step(const std::vector<float>& x, uint32_t pos, ChainOutputs& out) = 0;
  // "" when a chain of width d can be built (a multiple of 32: q8_0 blocks), else why not.
  static std::string check_shape(uint32_t d) {
    return d % 32 || d == 0 ? "the chain needs d a multiple of 32 (q8_0 blocks)" : "";
  }

 protected:
  // d: vector width, n: weight rows, max_pos: cache rows.
  DecodeChain(uint32_t d, uint32_t n, uint32_t max_pos) : d_(d), n_(n), max_pos_(max_pos) {}
  // "" when a step's input fits the chain, else why not.
  std::string check_step(const std::vector<float>& x, uint32_t pos) const {
    if (pos >= max_pos_) return "position past the cache";
    if (x.size() != d_) return "input width is not d";
    return {};
  }
  // The chain's q8_0 weights, n rows of d: every block scale 1/16 (fp16 0x2C00), codes from a
  // SplitMix64 stream of `seed`.
  static std::vector<uint8_t> weights(uint32_t d, uint32_t n, uint64_t seed) {
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
    return w;
  }
  uint32_t d_, n_, max_pos_;
};

}  // namespace qgate
