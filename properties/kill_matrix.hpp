// The kill matrix: every planted mutant against every property that applies to its
// target kernel. A mutant is killed when at least one property fails with it switched on;
// it must be killed by its named property. Meaningful only in the mutant build.
#pragma once
#include <string>
#include <vector>

#include "kernels/mutant.hpp"
#include "properties/catalog.hpp"
#include "properties/probes.hpp"

namespace qgate {

struct MutantRow {
  const mutant::Info* mutant = nullptr;
  const KernelInfo* kernel = nullptr;  // the target kernel, or
  const ProbeInfo* probe = nullptr;    // the target probe ("probe:<name>:<backend>")
  ProbeReport probe_report;
  bool skipped = false;                // the target's backend is not available here
  std::string skip_reason;
  std::vector<std::pair<const PropertyInfo*, PropertyRun>> runs;
  bool killed = false;
  bool killed_by_named = false;
  std::string killing_repro;  // the named property's one-line repro
  bool ok() const { return skipped || ((kernel || probe) && killed && killed_by_named); }
};

// The backend a mutant's target belongs to, also when this build has no such kernel or
// probe (its backend not built): from the registries, else from the name ("..._cpu",
// "..._vk", "..._vkdot", "..._cuda", "..._hip", "probe:<name>:<backend>"); cpu otherwise.
BackendId target_backend(std::string_view target);

// only: empty = every mutant. regression_dir: where each mutant's killing case is written.
std::vector<MutantRow> run_kill_matrix(const std::string& only, const std::string& regression_dir);
std::string format_kill_matrix(const std::vector<MutantRow>& rows);

}  // namespace qgate
