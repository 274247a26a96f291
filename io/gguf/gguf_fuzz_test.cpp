// The reader fed damaged copies of files the writer made: random byte flips, random u32/u64
// fields set to extreme values, truncations, insertions and deletions. Every input is an
// exactly sized vector (so ASan sees any overread); each is either refused with a "gguf:"
// message or parsed into a file whose every tensor lies inside the input.
// The seed is printed; QGATE_SEED=<n> replays one run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "io/gguf/gguf.hpp"
#include "io/gguf/gguf_test_util.hpp"

namespace qgate::gguf {
namespace {

constexpr int kCases = 20000;

uint64_t fuzz_seed() {
  const char* s = std::getenv("QGATE_SEED");
  const uint64_t v = s ? std::strtoull(s, nullptr, 0) : 20261201u;
  std::printf("[   SEED   ] gguf fuzz: QGATE_SEED=%llu\n", static_cast<unsigned long long>(v));
  return v;
}

std::vector<uint8_t> mutate(const std::vector<uint8_t>& good, std::mt19937_64& r) {
  std::vector<uint8_t> b = good;
  auto pos = [&](size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(r) : 0; };
  // Where the structure lives (header + kv + tensor infos) mutations matter most.
  const int edits = 1 + static_cast<int>(r() % 4);
  for (int e = 0; e < edits && !b.empty(); ++e) {
    switch (r() % 7) {
      case 0: b[pos(b.size())] ^= static_cast<uint8_t>(1u << (r() % 8)); break;
      case 1: b[pos(std::min<size_t>(b.size(), 1024))] = static_cast<uint8_t>(r()); break;
      case 2: {  // an extreme 64-bit field (lengths, counts, dims, offsets are u64)
        static const uint64_t extremes[] = {0, 1, 31, 33, 4096, 1ull << 31, 1ull << 32, 1ull << 62, 1ull << 63, ~0ull,
                                            ~0ull / 3};
        const size_t at = pos(std::min<size_t>(b.size(), 1024));
        const uint64_t v = extremes[r() % std::size(extremes)];
        for (int i = 0; i < 8 && at + i < b.size(); ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
        break;
      }
      case 3: {  // an extreme 32-bit field (types, n_dims, alignment)
        static const uint32_t extremes[] = {0, 3, 4, 5, 9, 12, 13, 36, 39, 40, 42, 43, 64, 0xFFFFFFFFu};
        const size_t at = pos(std::min<size_t>(b.size(), 1024));
        const uint32_t v = extremes[r() % std::size(extremes)];
        for (int i = 0; i < 4 && at + i < b.size(); ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
        break;
      }
      case 4: b.resize(pos(b.size() + 1)); break;  // truncation
      case 5: b.insert(b.begin() + static_cast<std::ptrdiff_t>(pos(b.size() + 1)), 1 + r() % 8, static_cast<uint8_t>(r())); break;
      case 6: {
        const size_t at = pos(b.size());
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                b.begin() + static_cast<std::ptrdiff_t>(std::min(b.size(), at + 1 + r() % 8)));
        break;
      }
    }
  }
  return b;
}

TEST(GgufFuzz, DamagedFilesRefusedOrParsedInsideTheirBounds) {
  std::mt19937_64 r(fuzz_seed());
  std::vector<std::vector<uint8_t>> seeds;
  for (uint32_t align : {0u, 32u, 64u, 1u}) {
    const auto s = test::sample_file(align);
    seeds.emplace_back();
    ASSERT_EQ(serialize(s.kv, s.tensors, seeds.back()), "");
  }
  int refused = 0, parsed = 0;
  for (int i = 0; i < kCases; ++i) {
    const std::vector<uint8_t> in = mutate(seeds[static_cast<size_t>(i) % seeds.size()], r);
    File f;
    const std::string e = parse(in, f);
    if (!e.empty()) {
      ++refused;
      ASSERT_EQ(e.rfind("gguf: ", 0), 0u) << e;
      ASSERT_TRUE(f.tensors.empty() && f.kv.empty());
      continue;
    }
    ++parsed;
    if (!f.tensors.empty()) {
      ASSERT_LE(f.data_offset, in.size());
    }
    for (const TensorInfo& t : f.tensors) {
      ASSERT_NE(t.ggml, nullptr);
      ASSERT_GE(t.n_dims, 1u);
      ASSERT_LE(t.n_dims, kMaxDims);
      ASSERT_EQ(t.offset % f.alignment, 0u);
      ASSERT_LE(f.data_offset + t.offset + t.nbytes, in.size()) << t.name;
      ASSERT_EQ(t.nbytes, t.elements / t.ggml->block_elems * t.ggml->block_bytes);
      volatile uint8_t sink = 0;  // touch the first and last byte: ASan checks both
      if (t.nbytes) sink = in[f.data_offset + t.offset] ^ in[f.data_offset + t.offset + t.nbytes - 1];
      (void)sink;
    }
    for (const KeyValue& kv : f.kv) (void)kv.value.to_string();
  }
  std::printf("[   FUZZ   ] %d inputs: %d refused, %d parsed\n", kCases, refused, parsed);
  EXPECT_GT(refused, kCases / 2);  // the mutations do damage
  EXPECT_GT(parsed, 50);           // and some survive (bytes flipped inside data or strings)
}

}  // namespace
}  // namespace qgate::gguf
