// Properties (properties.inc) and how to run one against one kernel.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/kernel.hpp"
#include "properties/gen/case_spec.hpp"
#include "properties/plan.hpp"
#include "properties/testbed.hpp"

namespace qgate {

struct FusedCase;  // properties/fused_case.hpp

enum class PropertyId : int {
#define QGATE_PROPERTY(id, applies, cases, plan, what) id,
#include "properties/properties.inc"
#undef QGATE_PROPERTY
  count
};

struct PropertyInfo {
  PropertyId id;
  std::string_view name;
  std::string_view applies;  // "dequant", "matmul", "any"
  int cases;                 // sampled cases or launch sequences; 0 for an exhaustive driver
  std::string_view plan_text;  // the row's plan, as written
  std::string_view what;
  Plan plan;                 // plan_text parsed
};

std::span<const PropertyInfo> all_properties();
const PropertyInfo* find_property(std::string_view name);
bool applies(const PropertyInfo& p, const KernelInfo& k);

struct RunOptions {
  uint64_t seed = 0;            // 0 = the default seed (QGATE_SEED env var or a fixed constant)
  std::string regression_dir;   // where failing cases are written; empty = not written
};

struct PropertyRun {
  bool pass = true;
  int cases = 0;
  int discarded = 0;
  int evidence = 0;             // cases whose expected output is mostly non-zero
  double max_ratio = 0;         // worst |err|/bound seen
  uint64_t seed = 0;
  std::string coverage;         // "sampled: 40 cases" / "exhaustive: 512 of 512 (code x lane)"
  std::string failure;          // verdict of the (shrunk) failing case
  std::string repro;            // one command line
  std::string case_file;        // written regression case, if any
  std::shared_ptr<const Case> failing;  // the concrete (shrunk) failing case, for reports
  std::shared_ptr<const FusedCase> failing_fused;  // the same for a fusion or attention kernel
};

uint64_t default_seed();
// " --mutant NAME" while a planted mutant is switched on (a repro line must switch it on
// too), "" otherwise.
std::string repro_mutant_suffix();
PropertyRun run_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt);
// Run one concrete spec (qgate repro).
CaseOutcome run_spec(const KernelInfo& k, const PropertyInfo& p, const CaseSpec& spec, Case* materialized = nullptr);

}  // namespace qgate
