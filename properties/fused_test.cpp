// Every fusion/attention property against every registered fused kernel it applies to:
// one gtest (one ctest entry) per pair, derived from fused_kernels() and properties.inc,
// built once per backend like property_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string_view>

#include "backends/backend.hpp"
#include "oracles/ops/attention.hpp"
#include "oracles/ops/fusion.hpp"
#include "properties/catalog.hpp"
#include "properties/gen/materialize.hpp"
#include "kernels/registry.hpp"
#include "properties/property_pairs.hpp"

namespace qgate {
namespace {

class Fused : public ::testing::TestWithParam<Pair> {};

TEST_P(Fused, Property) { run_pair(GetParam(), RunOptions{}); }

// No existing (weight-op) property applies to a fused kernel, and every fused kernel has
// at least one property.
// The oracle and catalog checks below are backend-independent: they run in the cpu binary.
bool cpu_binary() { return std::string_view(QGATE_TEST_BACKEND) == "cpu"; }

TEST(FusedCatalog, PropertiesKeepToTheirOps) {
  if (!cpu_binary()) GTEST_SKIP() << "runs in the cpu binary";
  for (const KernelInfo& k : fused_kernels()) {
    int own = 0;
    for (const PropertyInfo& p : all_properties()) {
      if (p.applies == "any" || p.applies == "dequant" || p.applies == "matmul") {
        EXPECT_FALSE(applies(p, k)) << p.name << " applies to " << k.name;
      }
      own += applies(p, k);
    }
    EXPECT_GT(own, 0) << k.name << " has no property";
    EXPECT_EQ(find_kernel(k.name), &k);
  }
}

// The router tie rule, by hand: equal logits put the lower index first (a strict rule);
// logits one ulp apart may come in either order (a near-tie, counted).
TEST(FusedOracle, RouterTieRule) {
  if (!cpu_binary()) GTEST_SKIP() << "runs in the cpu binary";
  const float l[] = {1.0f, 1.0f, 0.0f, std::nextafter(1.0f, 2.0f)};
  RouteRef ref;
  ASSERT_FALSE(moe_route_ref(l, 1, 4, 2, ref));
  EXPECT_EQ(ref.ids[0], 3);  // the largest logit
  EXPECT_EQ(ref.ids[1], 0);  // then the lower index of the tie
  auto check = [&](std::vector<int32_t> ids, int64_t want_bad, int64_t want_ties) {
    Reference w;
    int64_t bad, ties;
    std::string why;
    moe_route_judge(ref, ids.data(), w, bad, ties, why);
    EXPECT_EQ(bad, want_bad) << ids[0] << "," << ids[1] << ": " << why;
    EXPECT_EQ(ties, want_ties) << ids[0] << "," << ids[1];
  };
  check({3, 0}, 0, 0);
  check({0, 3}, 0, 1);  // 1 and nextafter(1) are within the bound: a near-tie
  check({3, 1}, 1, 0);  // expert 1 over its equal, lower-indexed twin 0
  check({1, 0}, 1, 0);
  check({3, 2}, 1, 0);  // p(2) is far below p(0)
  check({3, 3}, 1, 0);
  check({3, 4}, 1, 0);
}

// The attention bound covers the error its declared precision implies: the fp64 emulation
// with P rounded to f16 / bf16 lies inside it, and the bound for P in bf16 is not so loose
// that the emulation sits near zero of it.
TEST(FusedOracle, AttentionBoundCoversLowPrecisionP) {
  if (!cpu_binary()) GTEST_SKIP() << "runs in the cpu binary";
  for (OutType pt : {OutType::f32, OutType::f16, OutType::bf16}) {
    double worst = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Rng r(seed);
      AttentionShape s{1 + static_cast<int64_t>(seed % 3), 4, 2, 16 + static_cast<int64_t>(seed % 5), 40 + static_cast<int64_t>(seed), 0, 0};
      s.kv_cap = s.kv_len;
      s.scale = (seed % 2 ? 4.0 : 1.0) / std::sqrt(static_cast<double>(s.d));
      std::vector<float> q(s.tokens * s.n_head * s.d), k(s.n_head_kv * s.kv_cap * s.d), v(k.size());
      for (auto* t : {&q, &k, &v})
        for (float& x : *t) x = static_cast<float>(r.uniform() * 2 - 1);
      Reference ref;
      std::vector<double> emu;
      ASSERT_FALSE(attention_ref(q.data(), k.data(), v.data(), s, AttentionPrecision{0, 32, pt}, ref, &emu));
      for (size_t i = 0; i < emu.size(); ++i) {
        const double e = std::fabs(emu[i] - ref.value[i]);
        EXPECT_LE(e, ref.bound[i]) << out_name(pt) << " seed " << seed << " element " << i;
        worst = std::max(worst, e / ref.bound[i]);
      }
    }
    std::cout << "P in " << out_name(pt) << ": emulated |err|/bound max " << worst << "\n";
    if (pt != OutType::f32) {
      EXPECT_GT(worst, 0.02) << "the bound is far looser than the precision it models";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Fused, ::testing::ValuesIn(pairs_on_this_backend(fused_kernels())), pair_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fused);

}  // namespace
}  // namespace qgate
