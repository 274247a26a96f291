// Replaying a regression case file: on the kernel that failed and on every other kernel
// of the same op and format, on every available backend.
#pragma once
#include <string>
#include <vector>

#include "properties/case_file.hpp"
#include "properties/testbed.hpp"

namespace qgate {

struct ReplayResult {
  const KernelInfo* kernel = nullptr;
  bool skipped = false;
  std::string skip_reason;
  CaseOutcome outcome;
};

// Returns false with err when the file cannot be read or names an unknown kernel/format.
bool replay_case_file(const std::string& path, std::vector<ReplayResult>& out, std::string& err);

}  // namespace qgate
