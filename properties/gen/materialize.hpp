// Turns a CaseSpec into concrete data for one format: a valid weight tensor whose codes
// follow the requested pattern and whose scales follow the requested mode, and f32
// activations. Deterministic in the spec (SplitMix64 seeded from spec.seed).
#pragma once
#include <string>
#include <vector>

#include "oracles/formats/format.hpp"
#include "properties/gen/case_spec.hpp"

namespace qgate {

struct Case {
  CaseSpec spec;
  QTensor w;
  std::vector<float> x;  // [m][k], matmul only
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0,1)

 private:
  uint64_t s_;
};

// for_matmul caps "largest" scales so an f32 contraction cannot overflow.
// Returns an error message for specs the format cannot take (k not a whole number of blocks).
std::string materialize(const FormatInfo& f, const CaseSpec& spec, bool for_matmul, Case& out);

// Exhaustive scale sweep: every admissible bit pattern of a block format's first field
// (all finite fp16, all e8m0 but the NaN 0xFF; for f32 every exponent x 256 mantissas x
// sign), one block per row, other fields normal, codes varying in both axes.
std::vector<uint32_t> first_field_patterns(const FormatInfo& f, std::string& coverage);
std::string materialize_scale_sweep(const FormatInfo& f, const std::vector<uint32_t>& patterns, uint64_t seed,
                                    Case& out);

// Rows of the exhaustive pattern (CodeMode::diagonal) of a block format: `code_levels` rows
// putting code (row + position) mod levels at each code position, so every code meets every
// position; then one row per bit of the position index, putting one of two codes of different
// value by that bit, so every pair of positions of a block holds different codes in some row
// (the first rows alone give positions a multiple of the code count apart the same code in
// every row: a swap of those two positions was invisible).
int exhaustive_rows(const FormatInfo& f);

// The code the pattern puts at element (row, col): exposed for the generator's own tests.
int32_t pattern_code(CodeMode mode, int levels, int zero_code, int64_t row, int64_t col, int elems_per_block,
                     uint64_t salt, int64_t hot_lane);

}  // namespace qgate
