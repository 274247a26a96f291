// Exact emulation of the activation quantizations kernels declare (precision.hpp).
// The encoded blocks are bit-exact to the declared formula; `tie_step` marks elements
// whose scaled value lies within a few f32 ulps of a rounding boundary, where an
// equivalent formula (x*(1/d) for x/d, a different tie rule) may pick the neighbour code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oracles/ops/precision.hpp"

namespace qgate {

struct QuantizedActs {
  ActQuant kind = ActQuant::none;
  int64_t m = 0, k = 0;
  std::vector<double> value;     // [m][k] the dequantized activations, exact
  std::vector<double> tie_step;  // [m][k] 0, or how far the other admissible code moves value
  std::vector<uint8_t> blocks;   // q8_0 / q8_1 / q8_K blocks, row-major; empty for none / fp8
  std::vector<float> row_scale;  // fp8_e4m3_token: one f32 scale per row
  std::vector<uint8_t> fp8;      // fp8_e4m3_token: [m][k] codes
  int64_t ties = 0;
  // Set when the declared quantization cannot represent the input: a q8_1 scale that
  // overflows fp16 (amax > 65504*127), a q8_K iscale that overflows f32 (|max| tiny).
  std::string error;
};

// Block length the quantization needs k to be a multiple of (1 = none).
int64_t act_block(ActQuant a);
// Quantizes m rows of k f32 activations. k must be a multiple of act_block(a).
QuantizedActs quantize_act_ref(ActQuant a, const float* x, int64_t m, int64_t k);

}  // namespace qgate
