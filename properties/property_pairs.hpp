// The (property, kernel) pairs a per-backend test binary runs, one gtest each: every
// property against every kernel of the list it applies to on QGATE_TEST_BACKEND, and the
// run of one pair (skipped with the reason where the kernel's backend or device is absent).
#pragma once
#include <gtest/gtest.h>

#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "properties/catalog.hpp"

namespace qgate {

struct Pair {
  const KernelInfo* kernel;
  const PropertyInfo* property;
};

inline std::vector<Pair> pairs_on_this_backend(std::span<const KernelInfo> kernels) {
  std::vector<Pair> v;
  for (const PropertyInfo& p : all_properties())
    for (const KernelInfo& k : kernels)
      if (applies(p, k) && backend_name(k.backend) == QGATE_TEST_BACKEND) v.push_back({&k, &p});
  return v;
}

inline std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  return std::string(info.param.property->name) + "__" + info.param.kernel->name;
}

// Runs the pair's property and reports its seed, coverage and largest |err|/bound; a failure
// carries the verdict, the one-line repro and the case file written, if any.
inline void run_pair(const Pair& pr, const RunOptions& opt) {
  const Availability a = probe_kernel(*pr.kernel);
  if (!a.available) GTEST_SKIP() << backend_name(pr.kernel->backend) << ": " << a.reason;
  const PropertyRun r = run_property(*pr.kernel, *pr.property, opt);
  std::cout << "seed=0x" << std::hex << r.seed << std::dec << " " << r.coverage << " cases=" << r.cases
            << " discarded=" << r.discarded << " max|err|/bound=" << r.max_ratio << "\n";
  ::testing::Test::RecordProperty("coverage", r.coverage);
  EXPECT_TRUE(r.pass) << r.failure << "\n  repro: " << r.repro
                      << (r.case_file.empty() ? "" : "\n  case written: " + r.case_file);
}

}  // namespace qgate
