// Fusion and attention properties through the one sampled driver (rc_driver.hpp): draw a
// FusedSpec from the kernel and the property's plan, materialize it, run it through the
// fused testbed; a failure shrinks to its smallest spec, printed as a one-line reproduction.
#include <rapidcheck.h>

#include <iostream>
#include <sstream>

#include "properties/case_file.hpp"
#include "properties/rc_driver.hpp"
#include "properties/fused_case.hpp"

namespace qgate {

PropertyRun run_fused_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt) {
  PropertyRun r;
  r.seed = opt.seed ? opt.seed : default_seed();
  std::string detail;
  const auto failed = sample_cases<FusedSpec>(k, p, r, [&] { return gen_fused_spec(k, p); }, [&](const FusedSpec& s) {
    detail.clear();
    const CaseOutcome o = run_fused_case(k, materialize_fused(s), &detail);
    return Sample{o.pass(), false, !o.verdict.vacuous(), o.verdict.max_ratio,
                  o.summary() + (detail.empty() ? "" : " (" + detail + ")")};
  });
  if (failed) {
    // The shrunk spec is the whole case (materializing it is deterministic): the repro line
    // replays exactly it, and the regression file keeps its tensors.
    r.repro = "qgate repro --kernel " + k.name + " --property " + std::string(p.name) + " --case '" + to_string(*failed) +
              "'" + repro_mutant_suffix();
    auto c = std::make_shared<FusedCase>(materialize_fused(*failed));
    if (!opt.regression_dir.empty()) {
      std::string err;
      r.case_file = write_fused_case_file(opt.regression_dir, k.name, std::string(p.name), *c, r.failure, err);
      if (r.case_file.empty()) r.failure += " (regression case not written: " + err + ")";
    }
    r.failing_fused = std::move(c);
  }
  return r;
}

}  // namespace qgate
