// vendor.cuh's int8 tile products against their definition: D = A * B + C computed here
// from the matrices, the fragments laid out per lane as vendor.cuh documents them. Both the
// instruction form (mma.sync on sm_80+) and the portable form (the HIP fallback, run here
// on the NVIDIA device) must give exactly D, for k = 32 and k = 16, on random int8 values
// including -128 and 127. Without a CUDA device every test reports SKIPPED with the reason.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cuda/cuda_runtime.hpp"
#include "kernels/cuda/launchers.hpp"

namespace qgate {
namespace {

int pack(const int8_t* v) {
  uint32_t p = 0;
  for (int l = 0; l < 4; ++l) p |= uint32_t(uint8_t(v[l])) << (8 * l);
  return int(p);
}

TEST(TileProduct, InstructionAndPortableEqualTheDefinition) {
  const Availability av = probe_backend(BackendId::cuda);
  if (!av.available) GTEST_SKIP() << "cuda: " << av.reason;
  constexpr int tiles = 37;
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> val(-128, 127);
  std::vector<int8_t> A(tiles * 16 * 32), B(tiles * 8 * 32);  // A[t][row][k], B[t][col][k]
  for (auto& v : A) v = int8_t(val(rng));
  for (auto& v : B) v = int8_t(val(rng));
  for (int k = 0; k < 32; ++k) A[k] = -128, B[k] = -128;  // the extreme products in tile 0
  std::vector<int> frag(tiles * 32 * 6);
  for (int t = 0; t < tiles; ++t)
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, q = lane % 4;
      const int8_t* a = A.data() + t * 512;
      const int8_t* b = B.data() + t * 256;
      int* f = frag.data() + (t * 32 + lane) * 6;
      f[0] = pack(a + g * 32 + 4 * q);
      f[1] = pack(a + (g + 8) * 32 + 4 * q);
      f[2] = pack(a + g * 32 + 16 + 4 * q);
      f[3] = pack(a + (g + 8) * 32 + 16 + 4 * q);
      f[4] = pack(b + g * 32 + 4 * q);
      f[5] = pack(b + g * 32 + 16 + 4 * q);
    }
  std::string why;
  cu::Runtime* rt = cu::Runtime::instance(why);
  ASSERT_NE(rt, nullptr) << why;
  cu::DeviceBuffer df, dout;
  ASSERT_EQ(df.alloc(frag.size() * 4), "");
  ASSERT_EQ(df.upload(frag.data(), frag.size() * 4), "");
  ASSERT_EQ(dout.alloc(size_t(tiles) * 32 * 16 * 4), "");
  cuk::mma_check(static_cast<const int*>(df.ptr()), static_cast<int*>(dout.ptr()), tiles, rt->stream());
  std::vector<int> out(size_t(tiles) * 32 * 16);
  ASSERT_EQ(dout.download(out.data(), out.size() * 4), "");
  ASSERT_EQ(rt->sync("mma check"), "");
  int bad = 0;
  for (int t = 0; t < tiles; ++t)
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, q = lane % 4;
      const int c[4] = {lane, -lane, 7 * lane, 0};
      for (int e = 0; e < 4; ++e) {
        const int row = g + 8 * (e / 2), col = 2 * q + e % 2;
        int d32 = c[e], d16 = c[e];
        for (int k = 0; k < 32; ++k) {
          const int p = int(A[t * 512 + row * 32 + k]) * int(B[t * 256 + col * 32 + k]);
          d32 += p;
          if (k < 16) d16 += p;
        }
        const int* o = out.data() + (t * 32 + lane) * 16;
        const int want[4] = {d32, d32, d16, d16};
        for (int v = 0; v < 4; ++v)
          if (o[4 * v + e] != want[v] && bad++ < 8)
            ADD_FAILURE() << (v % 2 ? "portable" : "instruction") << " k=" << (v < 2 ? 32 : 16) << " tile " << t
                          << " lane " << lane << " D[" << row << "][" << col << "] = " << o[4 * v + e]
                          << ", definition " << want[v];
      }
    }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace qgate
