// Every case file under regression/cases is a failure found once and kept forever: it
// is replayed on every kernel of its op and format, on every available backend, and must
// pass (label "regression"). Files are found when ctest runs, so a new case needs no edit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "properties/replay.hpp"

namespace qgate {
namespace {

std::vector<std::string> case_files() {
  std::vector<std::string> v;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(QGATE_REGRESSION_DIR, ec))
    if (e.path().extension() == ".case") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

class Regression : public ::testing::TestWithParam<std::string> {};

TEST_P(Regression, Replays) {
  std::vector<ReplayResult> results;
  std::string err;
  ASSERT_TRUE(replay_case_file(GetParam(), results, err)) << err;
  int ran = 0;
  for (const ReplayResult& r : results) {
    if (r.skipped) {
      std::cout << "  " << r.kernel->name << ": skipped: " << r.skip_reason << "\n";
      continue;
    }
    ++ran;
    std::cout << "  " << r.kernel->name << ": " << r.outcome.summary() << "\n";
    EXPECT_TRUE(r.outcome.pass() || r.outcome.kind == CaseOutcome::Kind::rejected_by_kernel)
        << r.kernel->name << ": " << r.outcome.summary();
  }
  EXPECT_GT(ran, 0) << "no kernel could replay " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Cases, Regression, ::testing::ValuesIn(case_files()), [](const auto& info) {
  std::string n = std::filesystem::path(info.param).stem().string();
  std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Regression);

}  // namespace
}  // namespace qgate
