// The comparator: a kernel's output against the oracle's {value, bound}, plus the guard
// regions around it. nbad counts every element outside its bound and every non-finite
// element where the oracle is finite; a pass also needs intact redzones, no untouched
// poison inside the output, and (when declared) bit-identical reruns.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "oracles/ops/contract.hpp"

namespace qgate {

// The NaN pattern outputs are pre-filled with; a kernel must overwrite every element.
inline constexpr uint32_t kPoisonF32 = 0x7FC0DEADu;
inline constexpr uint16_t kPoisonF16 = 0x7E5Au;   // a quiet NaN in f16
inline constexpr uint16_t kPoisonBF16 = 0x7FDAu;  // a quiet NaN in bf16
// Redzone bytes before and after an output.
inline constexpr uint8_t kRedzoneByte = 0xA5;

struct BadElement {
  int64_t index = -1, row = -1, col = -1;
  double got = 0, want = 0, bound = 0;
};

struct Verdict {
  int64_t elements = 0;
  int64_t nbad = 0;           // includes nonfinite
  int64_t nonfinite = 0;      // non-finite outputs where the oracle is finite
  int64_t poison_left = 0;    // output elements still holding the poison pattern (never written)
  int64_t redzone_damaged = 0;  // bytes changed in the guard regions (writes past the output)
  int64_t nonzero_want = 0;   // evidence: outputs whose expected value is not zero
  BadElement first_bad;
  double max_ratio = 0;       // max |err| / bound over elements with bound > 0
  double max_abs_err = 0;
  bool determinism_checked = false;
  bool deterministic = true;
  int64_t tie_elements = 0;

  bool vacuous() const { return elements > 0 && nonzero_want * 10 < elements; }
  bool pass() const {
    return nbad == 0 && poison_left == 0 && redzone_damaged == 0 && (!determinism_checked || deterministic);
  }
  std::string summary() const;  // one line
};

// Decode an output buffer of `type` into doubles (exact).
std::vector<double> output_as_double(const void* data, int64_t count, OutType type);
// Is element i of the output still the poison pattern?
bool is_poison(const void* data, int64_t i, OutType type);

// Compare. `out` holds ref.rows*ref.cols elements of ref.out type; `guard_before` and
// `guard_after` are the redzone bytes around it (checked for kRedzoneByte).
Verdict judge(const Reference& ref, const void* out, const uint8_t* guard_before, size_t before_bytes,
              const uint8_t* guard_after, size_t after_bytes);

}  // namespace qgate
