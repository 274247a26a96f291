// The one way qgate runs a RapidCheck property (weight and fused cases alike): qgate's own
// seed and case count, RapidCheck's reporters kept quiet (qgate prints its seeds and repro
// lines itself), shrinking on. The property records its last failing case itself:
// RapidCheck accepts a shrink only when it fails, so the last failure seen is the minimal one.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

#include <rapidcheck/detail/Configuration.h>

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

}  // namespace qgate
