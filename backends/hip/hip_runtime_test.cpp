// The HIP runtime on an AMD device (ctest -L hip): this build's code objects load, and a
// kernel launched through a module computes what the host computes. Without a HIP runtime or
// an AMD device (every machine here), every test reports SKIPPED with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "backends/hip/hip_runtime.hpp"

namespace qgate {
namespace {

hip::Runtime* runtime_or_skip_reason(std::string& why) {
  const Availability a = probe_backend(BackendId::hip);
  why = a.reason;
  if (!a.available) return nullptr;
  return hip::Runtime::instance(why);
}

TEST(HipRuntime, LoadsEveryCodeObjectOfItsArchitecture) {
  std::string why;
  hip::Runtime* rt = runtime_or_skip_reason(why);
  if (!rt) GTEST_SKIP() << "hip: " << why;
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(rt->info().code_objects)) {
    if (e.path().extension() != ".co") continue;
    void* m = nullptr;
    EXPECT_EQ(rt->load_module(e.path().string(), &m), "");
    ++n;
  }
  EXPECT_GT(n, 0) << rt->info().code_objects;
}

// The census mutant and its twin (kernels/hip/census_mutants.cu) are both correct programs:
// out[b * 256 + t] = sum of the block's staged elements t*8 .. t*8+7 that lie below n, in
// that order. Both must equal the host's f32 sums bit for bit.
class HipStaging : public ::testing::TestWithParam<const char*> {};

TEST_P(HipStaging, SumsEqualTheHost) {
  std::string why;
  hip::Runtime* rt = runtime_or_skip_reason(why);
  if (!rt) GTEST_SKIP() << "hip: " << why;
  const std::string path = std::string(QGATE_HIP_CENSUS_MUTANTS_DIR) + "/" + rt->info().arch + "/census_mutants.co";
  void *m = nullptr, *fn = nullptr;
  ASSERT_EQ(rt->load_module(path, &m), "");
  const std::string name = GetParam();
  ASSERT_EQ(rt->function(m, "_ZN5qgate14census_mutants" + std::to_string(name.size()) + name + "EPKfiPf", &fn), "");
  constexpr int kTile = 256 * 8, kBlocks = 3;
  for (const int n : {1, 255, kTile, kTile + 7, kBlocks * kTile - 5}) {
    std::mt19937 rng(static_cast<uint32_t>(n));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> g(static_cast<size_t>(n));
    for (float& x : g) x = u(rng);
    const int blocks = (n + kTile - 1) / kTile;
    std::vector<float> want(static_cast<size_t>(blocks) * 256, 0.f), got(want.size(), -1.f);
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < 256; ++t) {
        float acc = 0.f;
        for (int j = 0; j < 8; ++j)
          if (const int e = b * kTile + t * 8 + j; e < n) acc += g[static_cast<size_t>(e)];
        want[static_cast<size_t>(b) * 256 + t] = acc;
      }
    void *dg = nullptr, *dout = nullptr;
    ASSERT_EQ(rt->alloc(g.size() * 4, &dg), "");
    ASSERT_EQ(rt->alloc(got.size() * 4, &dout), "");
    ASSERT_EQ(rt->upload(dg, g.data(), g.size() * 4), "");
    int nn = n;
    void* args[] = {&dg, &nn, &dout};
    ASSERT_EQ(rt->launch(fn, static_cast<unsigned>(blocks), 256, args), "");
    ASSERT_EQ(rt->sync(name.c_str()), "");
    ASSERT_EQ(rt->download(got.data(), dout, got.size() * 4), "");
    rt->free(dg);
    rt->free(dout);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << name << " n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, HipStaging, ::testing::Values("stage_predicated", "stage_clamped"),
                         [](const auto& i) { return std::string(i.param); });

}  // namespace
}  // namespace qgate
