// One ctest entry per planted mutant (label "mutants"): with the mutant switched on,
// its named property must fail on its target kernel. A survivor fails CI.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "backends/backend.hpp"
#include "properties/kill_matrix.hpp"
#include "properties/replay.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace {

class Mutant : public ::testing::TestWithParam<const mutant::Info*> {};

TEST_P(Mutant, IsKilled) {
  ASSERT_TRUE(mutant::compiled_in()) << "this binary must link the mutant kernels";
  if (const KernelInfo* k = find_kernel(GetParam()->target)) {
    const Availability a = probe_kernel(*k);
    if (!a.available) GTEST_SKIP() << backend_name(k->backend) << ": " << a.reason;
  }
  const auto rows = run_kill_matrix(std::string(GetParam()->name), "");
  ASSERT_EQ(rows.size(), 1u);
  std::cout << format_kill_matrix(rows);
  const MutantRow& r = rows[0];
  if (r.skipped) GTEST_SKIP() << r.skip_reason;
  ASSERT_TRUE(r.kernel || r.probe) << "target " << GetParam()->target << " is not registered";
  EXPECT_TRUE(r.killed) << GetParam()->name << " SURVIVED every property";
  EXPECT_TRUE(r.killed_by_named) << GetParam()->name << " was not killed by " << GetParam()->killer;
  if (r.killed_by_named) std::cout << "killing case: " << r.killing_repro << "\n";
}

// The stored regression case of each mutant's target kernel still kills it: a case file
// that stopped failing with the defect switched on would no longer guard anything.
TEST_P(Mutant, StoredCaseStillKills) {
  const mutant::Info& m = *GetParam();
  if (probe_from_target(m.target)) GTEST_SKIP() << "a probe mutant has no stored case: the probe is deterministic";
  {  // a stored case replays nothing where its backend cannot run (or is not built)
    const KernelInfo* k = find_kernel(m.target);
    const BackendId b = target_backend(m.target);
    const Availability a = k ? probe_kernel(*k) : probe_backend(b);
    if (!a.available) GTEST_SKIP() << backend_name(b) << ": " << a.reason;
  }
  const std::string prefix = std::string(m.target) + "-" + std::string(m.killer) + "-";
  int files = 0, killing = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(QGATE_REGRESSION_DIR, ec)) {
    if (e.path().filename().string().rfind(prefix, 0) != 0) continue;
    ++files;
    mutant::activate(m.id);
    std::vector<ReplayResult> rs;
    std::string err;
    const bool ok = replay_case_file(e.path().string(), rs, err);
    mutant::activate(mutant::Id::none);
    ASSERT_TRUE(ok) << err;
    for (const ReplayResult& r : rs)
      if (r.kernel->name == m.target && !r.skipped && !r.outcome.pass()) ++killing;
  }
  if (files == 0) GTEST_SKIP() << "no stored case for " << prefix << "* (qgate mutants --write-cases regression/cases)";
  EXPECT_GT(killing, 0) << "no stored case of " << m.target << " fails with " << m.name << " switched on";
}

std::vector<const mutant::Info*> mutants() {
  std::vector<const mutant::Info*> v;
  for (const mutant::Info& m : mutant::all()) {
    const KernelInfo* k = find_kernel(m.target);
    const ProbeInfo* probe = probe_from_target(m.target);
    // A mutant whose target is not registered in this build (its backend not built) is
    // reported, skipped with the reason, by the cpu binary.
    const std::string_view backend = k ? backend_name(k->backend) : probe ? backend_name(probe->backend) : "cpu";
    if (backend == QGATE_TEST_BACKEND) v.push_back(&m);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, Mutant, ::testing::ValuesIn(mutants()),
                         [](const auto& info) { return std::string(info.param->name); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Mutant);

}  // namespace
}  // namespace qgate
