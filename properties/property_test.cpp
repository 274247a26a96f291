// Every property against every registered kernel it applies to: one gtest (and so one
// ctest entry) per pair, derived from the two registries. Built once per backend
// (QGATE_TEST_BACKEND) so each binary's ctest entries carry that backend's label. A kernel whose backend is not
// available here is skipped with the reason. A failure prints the verdict, the seed and a
// one-line repro, and writes the shrunk case under regression/cases.
#include <gtest/gtest.h>

#include "kernels/registry.hpp"
#include "properties/property_pairs.hpp"

namespace qgate {
namespace {

class Gate : public ::testing::TestWithParam<Pair> {};

TEST_P(Gate, Property) {
  RunOptions opt;
  opt.regression_dir = QGATE_REGRESSION_DIR;
  run_pair(GetParam(), opt);
}

INSTANTIATE_TEST_SUITE_P(All, Gate, ::testing::ValuesIn(pairs_on_this_backend(all_kernels())), pair_name);

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Gate);

}  // namespace
}  // namespace qgate
