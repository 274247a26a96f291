// The generators themselves: patterns vary along exactly the axes they claim, one-hot
// blocks have one non-zero lane, special scale modes produce the promised bit patterns,
// and materialization is deterministic in the spec.
#include <gtest/gtest.h>

#include <set>

#include "oracles/formats/format.hpp"
#include "properties/gen/materialize.hpp"
#include "properties/catalog.hpp"
#include "properties/plan.hpp"

namespace qgate {
namespace {

TEST(Generator, PatternsVaryAlongTheirAxes) {
  const uint64_t salt = 12345;
  std::set<int> by_n, by_k;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) {
      EXPECT_EQ(pattern_code(CodeMode::n_only, 16, 8, r, c, 32, salt, 0), pattern_code(CodeMode::n_only, 16, 8, r, 0, 32, salt, 0));
      EXPECT_EQ(pattern_code(CodeMode::k_only, 16, 8, r, c, 32, salt, 0), pattern_code(CodeMode::k_only, 16, 8, 0, c, 32, salt, 0));
      by_n.insert(pattern_code(CodeMode::n_only, 16, 8, r, 0, 32, salt, 0));
      by_k.insert(pattern_code(CodeMode::k_only, 16, 8, 0, c, 32, salt, 0));
      EXPECT_EQ(pattern_code(CodeMode::uniform, 16, 8, r, c, 32, salt, 0), pattern_code(CodeMode::uniform, 16, 8, 0, 0, 32, salt, 0));
    }
  EXPECT_GT(by_n.size(), 4u);
  EXPECT_EQ(by_k.size(), 16u);
  // "both" must differ along n for a fixed k and along k for a fixed n.
  int diff_n = 0, diff_k = 0;
  for (int i = 1; i < 32; ++i) {
    diff_n += pattern_code(CodeMode::both, 16, 8, i, 3, 32, salt, 0) != pattern_code(CodeMode::both, 16, 8, 0, 3, 32, salt, 0);
    diff_k += pattern_code(CodeMode::both, 16, 8, 3, i, 32, salt, 0) != pattern_code(CodeMode::both, 16, 8, 3, 0, 32, salt, 0);
  }
  EXPECT_GT(diff_n, 20);
  EXPECT_GT(diff_k, 20);
}

TEST(Generator, OneHotHasOneLanePerBlock) {
  for (int r = 0; r < 8; ++r)
    for (int b = 0; b < 4; ++b) {
      int hot = 0;
      for (int i = 0; i < 32; ++i) hot += pattern_code(CodeMode::one_hot, 16, 8, r, b * 32 + i, 32, 99, 5) != 8;
      EXPECT_EQ(hot, 1);
    }
}

TEST(Generator, MaterializeIsDeterministicAndValid) {
  for (const FormatInfo* f : all_formats()) {
    CaseSpec s;
    s.n = 8;
    s.k = f->tensor_level() ? 64 : f->block_elems * 2;
    s.m = 2;
    for (ScaleMode sm : {ScaleMode::normal, ScaleMode::subnormal, ScaleMode::largest, ScaleMode::zero,
                         ScaleMode::negative, ScaleMode::sub_extreme, ScaleMode::smallest_normal, ScaleMode::mixed}) {
      s.scales = sm;
      Case a, b;
      ASSERT_EQ(materialize(*f, s, true, a), "") << f->name;
      ASSERT_EQ(materialize(*f, s, true, b), "") << f->name;
      EXPECT_EQ(a.w.bytes, b.w.bytes) << f->name;
      EXPECT_EQ(a.x, b.x) << f->name;
      std::vector<double> v, mag;
      EXPECT_FALSE(decode_tensor(a.w, v, mag)) << f->name << " " << name(sm) << ": " << decode_tensor(a.w, v, mag).message;
    }
  }
}

TEST(Generator, SpecialScalesProduceTheirBitPatterns) {
  const FormatInfo& f = format_info(FormatId::q4_0);
  CaseSpec s;
  s.n = 4;
  s.k = 64;
  auto d_bits = [&](ScaleMode m) {
    s.scales = m;
    Case c;
    EXPECT_EQ(materialize(f, s, false, c), "");
    std::set<uint16_t> bits;
    for (size_t b = 0; b < c.w.bytes.size(); b += 18) bits.insert(static_cast<uint16_t>(c.w.bytes[b] | (c.w.bytes[b + 1] << 8)));
    return bits;
  };
  // Each class with both signs (over 4 x 2 = 8 blocks, a sign missing has probability 2^-7).
  auto both_signs = [](const std::set<uint16_t>& bits) {
    bool pos = false, neg = false;
    for (uint16_t b : bits) (b & 0x8000 ? neg : pos) = true;
    return pos && neg;
  };
  s.seed = 11;
  const std::set<uint16_t> sub = d_bits(ScaleMode::subnormal), big = d_bits(ScaleMode::largest),
                           least = d_bits(ScaleMode::smallest_normal);
  for (uint16_t b : sub) EXPECT_TRUE((b & 0x7FFF) > 0 && (b & 0x7FFF) < 0x400) << b;
  for (uint16_t b : big) EXPECT_EQ(b & 0x7FFF, 0x7BFF);
  for (uint16_t b : least) EXPECT_EQ(b & 0x7FFF, 0x0400);
  EXPECT_TRUE(both_signs(sub));
  EXPECT_TRUE(both_signs(big));
  EXPECT_TRUE(both_signs(least));
  for (uint16_t b : d_bits(ScaleMode::zero)) EXPECT_TRUE(b == 0 || b == 0x8000);
  for (uint16_t b : d_bits(ScaleMode::negative)) EXPECT_TRUE(b & 0x8000);
  // mixed: the blocks of one row draw different classes.
  s.n = 8;
  s.k = 32 * 16;
  const std::set<uint16_t> mixed = d_bits(ScaleMode::mixed);
  std::set<int> classes;
  for (uint16_t b : mixed) {
    const uint16_t a = b & 0x7FFF;
    classes.insert(a == 0 ? 0 : a < 0x400 ? 1 : a == 0x400 ? 2 : a == 0x7BFF ? 3 : 4);
  }
  EXPECT_GE(classes.size(), 4u);
}

TEST(Generator, SpecRoundTripsAndRejectsImpossibleShapes) {
  CaseSpec s;
  s.m = 3; s.n = 5; s.k = 96; s.codes = CodeMode::one_hot; s.scales = ScaleMode::negative; s.act = ActMode::outliers;
  s.seed = 0xdeadbeef; s.group = 64; s.sym = true; s.gidx = true;
  CaseSpec t;
  std::string err;
  ASSERT_TRUE(parse_spec(to_string(s), t, err)) << err;
  EXPECT_EQ(to_string(t), to_string(s));
  EXPECT_FALSE(parse_spec("m=0,n=1,k=32", t, err));
  EXPECT_NE(err.find("impossible shape"), std::string::npos);
  EXPECT_FALSE(parse_spec("m=1,bogus=2", t, err));
  EXPECT_FALSE(parse_spec("codes=sideways", t, err));
}

// The exhaustive pattern, as every_code_every_lane materializes it, puts every valid code at
// every code position of a block and, for every pair of positions, different codes in some
// row: read back through each format's own unpacker.
TEST(Generator, ExhaustivePatternSeparatesEveryPairOfPositions) {
  for (const FormatInfo* f : all_formats()) {
    if (f->tensor_level() || f->is_activation) continue;
    CaseSpec s;
    s.codes = CodeMode::diagonal;
    s.n = exhaustive_rows(*f);
    s.k = f->block_elems;
    s.seed = 7;
    Case c;
    ASSERT_EQ(materialize(*f, s, false, c), "") << f->name;
    const int P = f->codes();
    std::vector<std::vector<int32_t>> rows;
    for (int64_t r = 0; r < s.n; ++r) {
      BlockFields bf;
      f->unpack_block(c.w.bytes.data() + r * f->block_bytes, bf);
      rows.push_back(bf.codes);
    }
    std::vector<char> seen(static_cast<size_t>(f->code_levels) * P, 0);
    for (const auto& codes : rows)
      for (int i = 0; i < P; ++i) seen[static_cast<size_t>(codes[i]) * P + i] = 1;
    for (int code = 0; code < f->code_levels; ++code)
      if (!f->code_valid || f->code_valid(code)) {
        for (int i = 0; i < P; ++i) ASSERT_TRUE(seen[static_cast<size_t>(code) * P + i]) << f->name << " code " << code << " lane " << i;
      }
    for (int i = 0; i < P; ++i)
      for (int j = i + 1; j < P; ++j) {
        bool separated = false;
        for (const auto& codes : rows) separated |= codes[i] != codes[j];
        ASSERT_TRUE(separated) << f->name << ": positions " << i << " and " << j << " hold the same code in every row";
      }
  }
}

// Each property's plan (properties.inc) is what its generator draws from: every row parses
// and says something (only random_blocks and rope_random take their op's defaults alone),
// and a malformed plan is refused with the item named.
TEST(Plan, EveryRowParsesAndBadPlansAreRefused) {
  int plain = 0;
  for (const PropertyInfo& p : all_properties()) {
    Plan again;
    std::string err;
    ASSERT_TRUE(parse_plan(p.plan_text, again, err)) << p.name << ": " << err;
    EXPECT_EQ(again.codes, p.plan.codes) << p.name;
    const bool exhaustive = p.plan.driver == Driver::every_code || p.plan.driver == Driver::scale_patterns;
    EXPECT_EQ(exhaustive, p.cases == 0) << p.name << ": exhaustive drivers take no case count, the others one";
    plain += p.plan_text.empty();
  }
  EXPECT_LE(plain, 2);  // random_blocks, rope_random: their op's defaults
  const Plan& cs = find_property("codes_single_axis")->plan;
  EXPECT_EQ(cs.codes, (std::vector<CodeMode>{CodeMode::uniform, CodeMode::n_only, CodeMode::k_only}));
  EXPECT_TRUE(find_property("special_scales")->plan.vacuous_ok);
  EXPECT_TRUE(find_property("deterministic")->plan.rerun);
  EXPECT_EQ(find_property("attn_long_kv")->plan.shapes, Shapes::long_kv);
  Plan p;
  std::string err;
  EXPECT_FALSE(parse_plan("codes=uniform|sideways", p, err));
  EXPECT_NE(err.find("sideways"), std::string::npos) << err;
  EXPECT_FALSE(parse_plan("colour=red", p, err));
  EXPECT_NE(err.find("colour"), std::string::npos) << err;
  EXPECT_FALSE(parse_plan("rerunn", p, err));
  EXPECT_FALSE(parse_plan("driver=twice", p, err));
  EXPECT_FALSE(parse_plan("scales=", p, err));
  ASSERT_TRUE(parse_plan(" shapes=ragged ; routing=skewed|random; rerun ", p, err)) << err;
  EXPECT_EQ(p.shapes, Shapes::ragged);
  EXPECT_EQ(p.routing, (std::vector<Routing>{Routing::skewed, Routing::random}));
  EXPECT_TRUE(p.rerun);
}

}  // namespace
}  // namespace qgate
