// The RapidCheck driver for fusion and attention properties: draw a FusedSpec from the
// kernel and property, materialize it, run it through the fused testbed; shrink a failure
// to its smallest spec and print it with a one-line reproduction.
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
  FusedSpec last_fail;
  std::string last_summary;
  bool failed = false;
  const auto property = [&] {
    const FusedSpec s = gen_fused_spec(k, p);
    std::string detail;
    const CaseOutcome o = run_fused_case(k, materialize_fused(s), &detail);
    ++r.cases;
    r.evidence += !o.verdict.vacuous();
    r.max_ratio = std::max(r.max_ratio, o.verdict.max_ratio);
    if (!o.pass()) {
      last_fail = s;
      last_summary = o.summary() + (detail.empty() ? "" : " (" + detail + ")");
      failed = true;
      RC_FAIL(last_summary);
    }
  };
  const std::string could_not_run = run_rc_property(property, r.seed, p.cases, k.name + "/" + std::string(p.name));
  r.coverage = "sampled: " + std::to_string(p.cases) + " cases";
  if (failed) {
    // The shrunk spec is the whole case (materializing it is deterministic): the repro line
    // replays exactly it, and the regression file keeps its tensors.
    r.pass = false;
    r.failure = last_summary;
    r.repro = "qgate repro --kernel " + k.name + " --property " + std::string(p.name) + " --case '" + to_string(last_fail) +
              "'" + repro_mutant_suffix();
    auto c = std::make_shared<FusedCase>(materialize_fused(last_fail));
    if (!opt.regression_dir.empty()) {
      std::string err;
      r.case_file = write_fused_case_file(opt.regression_dir, k.name, std::string(p.name), *c, r.failure, err);
      if (r.case_file.empty()) r.failure += " (regression case not written: " + err + ")";
    }
    r.failing_fused = std::move(c);
  } else if (!could_not_run.empty()) {
    r.pass = false;
    r.failure = could_not_run;
  } else if (r.evidence * 2 < r.cases) {
    r.pass = false;
    r.failure = "vacuous: only " + std::to_string(r.evidence) + " of " + std::to_string(r.cases) +
                " cases had mostly non-zero expected output";
  }
  return r;
}

}  // namespace qgate
