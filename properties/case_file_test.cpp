// Case files: what write_case_file / write_fused_case_file write, read_case_file reads back
// bit for bit (JSON, version 2); version 1 files still read; damaged files are refused with
// the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "properties/case_file.hpp"

namespace qgate {
namespace {

std::string scratch_dir() {
  const auto d = std::filesystem::temp_directory_path() / ("qgate_case_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(d);
  return d.string();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

Case weight_case() {
  CaseSpec s;
  s.m = 3, s.n = 5, s.k = 64, s.seed = 0x1234, s.codes = CodeMode::both, s.scales = ScaleMode::mixed;
  Case c;
  EXPECT_EQ(materialize(*find_format("q4_0"), s, true, c), "");
  c.x[1] = -0.0f;  // bits that a decimal round trip could lose
  std::memcpy(&c.x[2], "\x01\x00\x80\x7f", 4);  // a NaN payload
  return c;
}

TEST(CaseFile, WeightCaseRoundTripsBitForBit) {
  const std::string dir = scratch_dir();
  const Case c = weight_case();
  std::string err;
  const std::string path = write_case_file(dir, "matmul_q4_0_q8_1_cpu", "random_blocks", c, "FAIL nbad=1/15", err);
  ASSERT_FALSE(path.empty()) << err;
  EXPECT_EQ(slurp(path).substr(0, 16), "{\n \"qgate_case\":");
  CaseFile cf;
  ASSERT_TRUE(read_case_file(path, cf, err)) << err;
  EXPECT_FALSE(cf.fused);
  EXPECT_EQ(cf.kernel, "matmul_q4_0_q8_1_cpu");
  EXPECT_EQ(cf.property, "random_blocks");
  EXPECT_EQ(cf.op, "matmul");
  EXPECT_EQ(cf.format, "q4_0");
  EXPECT_EQ(cf.verdict, "FAIL nbad=1/15");
  EXPECT_EQ(to_string(cf.c.spec), to_string(c.spec));
  EXPECT_EQ(cf.c.w.n, c.w.n);
  EXPECT_EQ(cf.c.w.k, c.w.k);
  EXPECT_EQ(cf.c.w.bytes, c.w.bytes);
  EXPECT_TRUE(same_bits(cf.c.x, c.x));
  std::filesystem::remove_all(dir);
}

TEST(CaseFile, FusedCaseRoundTripsBitForBit) {
  const std::string dir = scratch_dir();
  FusedSpec s;
  std::string err;
  ASSERT_TRUE(parse_fused_spec("op=attention,values=normal,rows=1,n=1,top_k=1,tokens=2,n_head=2,n_head_kv=1,d=4,"
                               "kv_len=3,kv_cap=5,rope=neox,eps=1e-06,base=10000,scale=0.5,seed=0x9",
                               s, err))
      << err;
  const FusedCase c = materialize_fused(s);
  const std::string path = write_fused_case_file(dir, "attn_eager_f32_cpu", "attn_random", c, "FAIL x", err);
  ASSERT_FALSE(path.empty()) << err;
  CaseFile cf;
  ASSERT_TRUE(read_case_file(path, cf, err)) << err;
  EXPECT_TRUE(cf.fused);
  EXPECT_EQ(cf.op, "attention");
  EXPECT_EQ(to_string(cf.fc.spec), to_string(c.spec));
  EXPECT_TRUE(same_bits(cf.fc.q, c.q));
  EXPECT_TRUE(same_bits(cf.fc.k, c.k));
  EXPECT_TRUE(same_bits(cf.fc.v, c.v));
  EXPECT_EQ(cf.fc.pos, c.pos);
  std::filesystem::remove_all(dir);
}

TEST(CaseFile, VersionOneStillReads) {
  const std::string dir = scratch_dir();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/v1.case";
  // one q8_0 block (d = 1.0, codes 0..31) against one activation row of 32 ones
  std::string w = "003c", x;
  for (int i = 0; i < 32; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", i);
    w += b;
    x += "0000803f";
  }
  spit(path, "qgate-case 1\nkernel matmul_q8_0_f32_cpu\nproperty random_blocks\nop matmul\nformat q8_0\n"
             "spec m=1,n=1,k=32,codes=random,scales=normal,act=normal,seed=0x1\nverdict FAIL\n"
             "n 1\nk 32\nm 1\nw " + w + "\nx " + x + "\nend\n");
  CaseFile cf;
  std::string err;
  ASSERT_TRUE(read_case_file(path, cf, err)) << err;
  EXPECT_EQ(cf.format, "q8_0");
  ASSERT_EQ(cf.c.w.bytes.size(), 34u);
  EXPECT_EQ(cf.c.w.bytes[2 + 31], 31);
  ASSERT_EQ(cf.c.x.size(), 32u);
  EXPECT_EQ(cf.c.x[0], 1.0f);
  std::filesystem::remove_all(dir);
}

TEST(CaseFile, DamagedFilesAreRefusedWithTheReason) {
  const std::string dir = scratch_dir();
  const Case c = weight_case();
  std::string err;
  const std::string path = write_case_file(dir, "matmul_q4_0_q8_1_cpu", "random_blocks", c, "FAIL", err);
  ASSERT_FALSE(path.empty()) << err;
  const std::string good = slurp(path);
  struct Damage {
    std::string text, reason;
  };
  std::string no_tensors = good.substr(0, good.find(",\n \"tensors\"")) + "\n}\n";
  std::string bad_hex = good;
  bad_hex.replace(bad_hex.find("\"x\": \"") + 6, 2, "zz");
  std::string short_x = good;
  short_x.erase(short_x.find("\"x\": \"") + 6, 8);
  std::string v3 = good;
  v3.replace(v3.find("2"), 1, "3");
  const Damage cases[] = {{good.substr(0, good.size() / 2), "malformed JSON"},
                          {no_tensors, "'tensors' missing"},
                          {bad_hex, "bad hex in x"},
                          {short_x, "activation size does not match m*k"},
                          {v3, "version 2"}};
  for (const Damage& d : cases) {
    spit(path, d.text);
    CaseFile cf;
    err.clear();
    EXPECT_FALSE(read_case_file(path, cf, err)) << d.reason;
    EXPECT_NE(err.find(d.reason), std::string::npos) << err;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qgate
