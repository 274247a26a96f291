// One case run again with every output element kept, for pictures: |err|/bound per element,
// which elements the verdict counts as bad, and which guard bytes after the output were
// overwritten (rows past M show there). The verdict itself stays judge()'s.
#pragma once
#include <string>
#include <vector>

#include "properties/testbed.hpp"

namespace qgate {

struct CaseDetail {
  enum Cell : uint8_t { ok = 0, bad = 1, nonfinite = 2, unwritten = 3 };
  int64_t rows = 0, cols = 0;
  std::vector<float> ratio;   // |got - want| / bound (inf where bound is 0 and got differs)
  std::vector<uint8_t> cell;  // Cell per element
  // Guard region after the output, per output-sized element slot: true = some byte changed.
  std::vector<uint8_t> guard_after;
  int64_t redzone_before_damaged = 0;
  Verdict verdict;
  std::string error;  // the oracle or the kernel refused the case
};

CaseDetail case_detail(const KernelInfo& k, const Case& c);
// A fusion or attention case: the detail of its primary output (properties/fused_case.hpp).
struct FusedCase;
CaseDetail case_detail(const KernelInfo& k, const FusedCase& c);

}  // namespace qgate
