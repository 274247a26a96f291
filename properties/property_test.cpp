// Every property against every registered kernel it applies to: one gtest (and so one
// ctest entry) per pair, derived from the two registries. Built once per backend
// (QGATE_TEST_BACKEND) so each binary's ctest entries carry that backend's label. A kernel whose backend is not
// available here is skipped with the reason. A failure prints the verdict, the seed and a
// one-line repro, and writes the shrunk case under regression/cases.
#include <gtest/gtest.h>

#include <iostream>

#include "backends/backend.hpp"
#include "properties/catalog.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace {

struct Pair {
  const KernelInfo* kernel;
  const PropertyInfo* property;
};

std::vector<Pair> pairs() {
  std::vector<Pair> v;
  for (const PropertyInfo& p : all_properties())
    for (const KernelInfo& k : all_kernels())
      if (applies(p, k) && backend_name(k.backend) == QGATE_TEST_BACKEND) v.push_back({&k, &p});
  return v;
}

class Gate : public ::testing::TestWithParam<Pair> {};

TEST_P(Gate, Property) {
  const Pair& pr = GetParam();
  const Availability a = probe_kernel(*pr.kernel);
  if (!a.available) GTEST_SKIP() << backend_name(pr.kernel->backend) << ": " << a.reason;
  RunOptions opt;
  opt.regression_dir = QGATE_REGRESSION_DIR;
  const PropertyRun r = run_property(*pr.kernel, *pr.property, opt);
  std::cout << "seed=0x" << std::hex << r.seed << std::dec << " " << r.coverage << " cases=" << r.cases
            << " discarded=" << r.discarded << " max|err|/bound=" << r.max_ratio << "\n";
  RecordProperty("coverage", r.coverage);
  EXPECT_TRUE(r.pass) << r.failure << "\n  repro: " << r.repro
                      << (r.case_file.empty() ? "" : "\n  case written: " + r.case_file);
}

INSTANTIATE_TEST_SUITE_P(All, Gate, ::testing::ValuesIn(pairs()), [](const auto& info) {
  return std::string(info.param.property->name) + "__" + info.param.kernel->name;
});

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Gate);

}  // namespace
}  // namespace qgate
