// The one way qgate runs a RapidCheck property (weight, fused and MoE cases alike): qgate's
// own seed and case count, RapidCheck's reporters kept quiet (qgate prints its seeds and
// repro lines itself), shrinking on. sample_cases() is the driver every sampled property
// runs through: draw a spec, run it, count it, shrink a failure to its smallest spec.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

#include <rapidcheck/detail/Configuration.h>

#include <algorithm>
#include <optional>

#include "properties/catalog.hpp"

namespace qgate {

// "" when every case passed, else RapidCheck's account of what stopped it; the caller looks
// first at the failure its property recorded (a failing case), then at this.
template <class Property>
std::string run_rc_property(Property&& property, uint64_t seed, int cases, const std::string& id) {
  // RapidCheck announces a global seed of its own on stderr when it first loads its
  // configuration; every parameter is passed explicitly, so the configuration is loaded
  // once with that announcement swallowed.
  static const bool quiet_config = [] {
    std::ostringstream sink;
    std::streambuf* old = std::cerr.rdbuf(sink.rdbuf());
    rc::detail::configuration();
    std::cerr.rdbuf(old);
    return true;
  }();
  (void)quiet_config;
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  params.maxSize = 100;
  params.maxDiscardRatio = 20;
  rc::detail::TestMetadata meta;
  meta.id = id;
  struct Quiet : rc::detail::TestListener {
    void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
    void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
    void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  } quiet;
  const auto result = rc::detail::checkTestable(std::forward<Property>(property), meta, params, quiet);
  if (result.template is<rc::detail::SuccessResult>()) return "";
  std::ostringstream os;
  rc::detail::printResultMessage(result, os);
  return "property could not run: " + os.str();
}

// What one drawn case came to.
struct Sample {
  bool pass = true;
  bool discard = false;   // the kernel refused the case (it is drawn again, not counted)
  bool evidence = false;  // its expected output is mostly non-zero
  double max_ratio = 0;
  std::string failure;    // why it failed, or why it was refused
};

// Runs property p of kernel k as p.cases drawn cases: draw() returns a Spec (inside the
// RapidCheck property, so it shrinks), run(spec) a Sample. Fills r's counts, coverage and
// verdict (a failure, a property that could not run, or a vacuous run unless the plan
// allows it) and returns the smallest failing spec: RapidCheck accepts a shrink only when it
// still fails, so the last failure seen is the minimal one.
template <class Spec, class Draw, class Run>
std::optional<Spec> sample_cases(const KernelInfo& k, const PropertyInfo& p, PropertyRun& r, Draw&& draw, Run&& run) {
  std::optional<Spec> failed;
  std::string failure;
  const auto property = [&] {
    const Spec s = draw();
    const Sample o = run(s);
    if (o.discard) {
      ++r.discarded;
      RC_DISCARD(o.failure);
    }
    ++r.cases;
    r.evidence += o.evidence;
    r.max_ratio = std::max(r.max_ratio, o.max_ratio);
    if (!o.pass) {
      failed = s;
      failure = o.failure;
      RC_FAIL(o.failure);
    }
  };
  const std::string could_not_run = run_rc_property(property, r.seed, p.cases, k.name + "/" + std::string(p.name));
  r.coverage = "sampled: " + std::to_string(p.cases) + " cases";
  if (failed) {
    r.pass = false;
    r.failure = failure;
  } else if (!could_not_run.empty()) {
    r.pass = false;
    r.failure = could_not_run;
  } else if (!p.plan.vacuous_ok && r.evidence * 2 < r.cases) {
    // A property whose outputs are mostly zero proves nothing (benchdnn's vacuous-pass rule).
    r.pass = false;
    r.failure = "vacuous: only " + std::to_string(r.evidence) + " of " + std::to_string(r.cases) +
                " cases had mostly non-zero expected output";
  }
  return failed;
}

// One alternative of a plan's list (its default where the list is empty), drawn inside a
// RapidCheck property: shrinks toward the first.
template <class E>
E draw_from(const std::vector<E>& alternatives, E otherwise) {
  return alternatives.empty() ? otherwise : *rc::gen::elementOf(alternatives);
}

}  // namespace qgate
