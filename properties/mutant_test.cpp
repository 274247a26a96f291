// One ctest entry per planted mutant (label "mutants"): with the mutant switched on,
// its named property must fail on its target kernel. A survivor fails CI.
#include <gtest/gtest.h>

#include <iostream>

#include "properties/kill_matrix.hpp"

namespace qgate {
namespace {

class Mutant : public ::testing::TestWithParam<const mutant::Info*> {};

TEST_P(Mutant, IsKilled) {
  ASSERT_TRUE(mutant::compiled_in()) << "this binary must link the mutant kernels";
  const auto rows = run_kill_matrix(std::string(GetParam()->name), "");
  ASSERT_EQ(rows.size(), 1u);
  std::cout << format_kill_matrix(rows);
  const MutantRow& r = rows[0];
  ASSERT_NE(r.kernel, nullptr) << "target kernel " << GetParam()->target << " is not registered";
  EXPECT_TRUE(r.killed) << GetParam()->name << " SURVIVED every property";
  EXPECT_TRUE(r.killed_by_named) << GetParam()->name << " was not killed by " << GetParam()->killer;
  if (r.killed_by_named) std::cout << "killing case: " << r.killing_repro << "\n";
}

std::vector<const mutant::Info*> mutants() {
  std::vector<const mutant::Info*> v;
  for (const mutant::Info& m : mutant::all()) v.push_back(&m);
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, Mutant, ::testing::ValuesIn(mutants()),
                         [](const auto& info) { return std::string(info.param->name); });

}  // namespace
}  // namespace qgate
