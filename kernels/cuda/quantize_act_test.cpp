// The device activation quantizers (kernels/cuda/quantize_act.cu) must write the exact
// bytes of the oracle's emulation (oracles/ops/quantize_act.cpp): same scales, same codes
// at exact rounding ties (q8_1 half away from zero, q8_K half to even), same sums.
// Without a CUDA device every test reports SKIPPED with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "kernels/cuda/cuda_code.hpp"
#include "oracles/ops/quantize_act.hpp"

namespace qgate {
namespace {

enum class Rows { random, ties, tiny, outliers, zero_and_equal };

std::vector<float> make_rows(ActQuant a, Rows kind, int64_t m, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::uniform_int_distribution<int> code(-126, 126);
  std::vector<float> x(static_cast<size_t>(m * k));
  const int64_t blk = act_block(a);
  for (int64_t i = 0; i < m * k; ++i) {
    switch (kind) {
      case Rows::random: x[i] = u(rng) * std::ldexp(1.f, static_cast<int>(i / blk % 17) - 8); break;
      case Rows::tiny: x[i] = u(rng) * (a == ActQuant::q8_K ? 1e-36f : 1e-38f); break;  // denormal scales
      case Rows::outliers: x[i] = (i % 37 == 5) ? u(rng) * 3e4f : u(rng); break;
      case Rows::zero_and_equal: x[i] = (i / blk) % 2 ? 0.f : 0.75f; break;
      case Rows::ties:
        // Block extreme +-127/8 makes the scale exactly 1/8 (q8_1: d = 0.125; q8_K:
        // iscale = 8), so (n + 1/2) / 8 sits exactly on a rounding tie.
        if (i % blk == 0) x[i] = a == ActQuant::q8_K ? -15.875f : 15.875f;
        else x[i] = (static_cast<float>(code(rng)) + 0.5f) * 0.125f;
        break;
    }
  }
  return x;
}

std::string test_name(ActQuant a, Rows r) {
  static const char* const kinds[] = {"random", "ties", "tiny", "outliers", "zero_and_equal"};
  return std::string(act_name(a)) + "_" + kinds[static_cast<int>(r)];
}

// The whole block holding byte `at`, in hex (for the failure message).
std::string block_hex(const std::vector<uint8_t>& v, size_t at, ActQuant a) {
  const size_t bytes = a == ActQuant::q8_1 ? 36 : 292, b0 = at / bytes * bytes;
  std::string s;
  char buf[4];
  for (size_t i = b0; i < std::min(v.size(), b0 + bytes); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", v[i]);
    s += buf;
    if (i == b0 + (a == ActQuant::q8_1 ? 3 : 3)) s += '|';
  }
  return s;
}

class DeviceQuantizer : public ::testing::TestWithParam<std::tuple<ActQuant, Rows>> {};

TEST_P(DeviceQuantizer, BytesEqualTheOracle) {
  const Availability av = probe_backend(BackendId::cuda);
  if (!av.available) GTEST_SKIP() << "cuda: " << av.reason;
  const auto [a, kind] = GetParam();
  for (const int64_t m : {1, 3, 8}) {
    const int64_t k = act_block(a) * (a == ActQuant::q8_K ? 5 : 37);
    const std::vector<float> x = make_rows(a, kind, m, k, static_cast<uint32_t>(m * 7919 + static_cast<int>(kind)));
    const QuantizedActs ref = quantize_act_ref(a, x.data(), m, k);
    ASSERT_TRUE(ref.error.empty()) << ref.error;
    std::vector<uint8_t> got;
    ASSERT_EQ(cuk::quantize_act_on_device(a, x.data(), m, k, got), "");
    ASSERT_EQ(got.size(), ref.blocks.size());
    size_t bad = 0, first = got.size();
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != ref.blocks[i]) {
        ++bad;
        first = std::min(first, i);
      }
    EXPECT_EQ(bad, 0u) << "m=" << m << " k=" << k << ": " << bad << " bytes differ, first at byte " << first
                       << "; its block, device then oracle:\n" << block_hex(got, first, a) << "\n"
                       << block_hex(ref.blocks, first, a);
    if (kind == Rows::ties) {
      EXPECT_GT(ref.ties, 0) << "the tie rows must contain ties";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, DeviceQuantizer,
                         ::testing::Combine(::testing::Values(ActQuant::q8_1, ActQuant::q8_K),
                                            ::testing::Values(Rows::random, Rows::ties, Rows::tiny, Rows::outliers,
                                                              Rows::zero_and_equal)),
                         [](const auto& info) { return test_name(std::get<0>(info.param), std::get<1>(info.param)); });

}  // namespace
}  // namespace qgate
