// The GGUF reader and writer: round trip of every value type and tensor layout, the type
// table against qgate's format registry, and each malformation refused with its message.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "io/gguf/gguf.hpp"
#include "io/gguf/gguf_test_util.hpp"

namespace qgate::gguf {
namespace {

using test::patch;
using test::sample_file;

// Serializes kv and tensors into bytes and parses them back into f: "" or the first error.
std::string round_trip(const std::vector<KeyValue>& kv, const std::vector<TensorData>& tensors,
                       std::vector<uint8_t>& bytes, File& f) {
  if (std::string e = serialize(kv, tensors, bytes); !e.empty()) return "serialize: " + e;
  return parse(bytes, f);
}

TEST(GgufTypes, TableAgreesWithFormatRegistry) {
  int matched = 0;
  for (const FormatInfo* f : all_formats()) {
    if (f->ggml_type < 0) continue;
    const GgmlType* g = find_ggml_type(static_cast<uint32_t>(f->ggml_type));
    ASSERT_NE(g, nullptr) << f->name;
    EXPECT_EQ(g->name, f->name) << "ggml id " << f->ggml_type;
    EXPECT_EQ(g->block_elems, f->block_elems) << f->name;
    EXPECT_EQ(g->block_bytes, f->block_bytes) << f->name;
    EXPECT_EQ(qgate_format(g->id), f);
    ++matched;
  }
  EXPECT_GE(matched, 27);  // every GGUF-stored format qgate has an oracle for
  // formats.inc's ggml ids, checked against ggml.h's enum (ggml/include/ggml.h; ggml 0.23 for 40..42).
  const std::pair<uint32_t, std::string_view> ids[] = {
      {2, "q4_0"}, {3, "q4_1"}, {6, "q5_0"}, {7, "q5_1"}, {8, "q8_0"}, {9, "q8_1"}, {10, "q2_K"},
      {14, "q6_K"}, {15, "q8_K"}, {16, "iq2_xxs"}, {23, "iq4_xs"}, {29, "iq1_m"}, {30, "bf16"},
      {34, "tq1_0"}, {35, "tq2_0"}, {39, "mxfp4"}, {40, "nvfp4"}, {41, "q1_0"}, {42, "q2_0"}};
  for (auto [id, name] : ids) {
    ASSERT_NE(find_ggml_type(id), nullptr) << id;
    EXPECT_EQ(find_ggml_type(id)->name, name);
  }
  for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u, 1000u}) EXPECT_EQ(find_ggml_type(removed), nullptr);
  EXPECT_EQ(qgate_format(0), nullptr);   // f32: no oracle
  EXPECT_EQ(qgate_format(30), nullptr);  // bf16
}

TEST(Gguf, RoundTripEveryValueTypeAndTensor) {
  const auto s = sample_file(64);
  std::vector<uint8_t> bytes;
  File f;
  ASSERT_EQ(round_trip(s.kv, s.tensors, bytes, f), "");
  EXPECT_EQ(f.version, 3u);
  EXPECT_EQ(f.alignment, 64u);
  EXPECT_EQ(f.data_offset % 64, 0u);
  ASSERT_EQ(f.kv.size(), s.kv.size());
  for (size_t i = 0; i < s.kv.size(); ++i) {
    EXPECT_EQ(f.kv[i].key, s.kv[i].key);
    EXPECT_EQ(f.kv[i].value, s.kv[i].value) << s.kv[i].key;
  }
  ASSERT_EQ(f.tensors.size(), s.tensors.size());
  for (size_t i = 0; i < s.tensors.size(); ++i) {
    const TensorInfo& t = f.tensors[i];
    EXPECT_EQ(t.name, s.tensors[i].name);
    EXPECT_EQ(t.type, s.tensors[i].type);
    ASSERT_EQ(t.n_dims, s.tensors[i].ne.size());
    for (uint32_t d = 0; d < t.n_dims; ++d) EXPECT_EQ(t.ne[d], s.tensors[i].ne[d]);
    EXPECT_EQ(t.offset % 64, 0u);
    ASSERT_EQ(t.nbytes, s.tensors[i].bytes.size());
    EXPECT_EQ(0, std::memcmp(bytes.data() + f.data_offset + t.offset, s.tensors[i].bytes.data(), t.nbytes)) << t.name;
  }
  EXPECT_EQ(f.find("general.name")->value.to_string(), "\"qgate fixture\"");
  EXPECT_EQ(f.find("test.i8")->value.to_string(), "-5");
  EXPECT_EQ(f.find("test.f32")->value.to_string(), "1.5");
  EXPECT_EQ(f.find("test.nested")->value.to_string(), "[2 x array: [2 x u32: 1, 2], [1 x u32: 3]]");
  // Serializing what was read gives the same bytes.
  std::vector<KeyValue> kv2 = f.kv;
  std::vector<TensorData> t2;
  for (const TensorInfo& t : f.tensors)
    t2.push_back({t.name, std::vector<uint64_t>(t.ne, t.ne + t.n_dims), t.type,
                  std::vector<uint8_t>(bytes.begin() + f.data_offset + t.offset,
                                       bytes.begin() + f.data_offset + t.offset + t.nbytes)});
  std::vector<uint8_t> again;
  ASSERT_EQ(serialize(kv2, t2, again), "");
  EXPECT_EQ(again, bytes);
}

TEST(Gguf, DefaultAlignmentAndEmptyFile) {
  const auto s = sample_file(0);
  std::vector<uint8_t> bytes;
  File f;
  ASSERT_EQ(round_trip(s.kv, s.tensors, bytes, f), "");
  EXPECT_EQ(f.alignment, 32u);
  // Header only: no kv, no tensors.
  ASSERT_EQ(round_trip({}, {}, bytes, f), "");
  EXPECT_EQ(bytes.size(), 32u);  // the 24-byte header padded to the alignment
  EXPECT_TRUE(f.tensors.empty());
}

TEST(Gguf, WriterRefusesInconsistentTensors) {
  std::vector<uint8_t> b;
  EXPECT_NE(serialize({}, {{"w", {32, 2}, 8, std::vector<uint8_t>(67)}}, b).find("need 68"), std::string::npos);
  EXPECT_NE(serialize({}, {{"w", {32}, 4, std::vector<uint8_t>(18)}}, b).find("unknown ggml type id 4"), std::string::npos);
  EXPECT_NE(serialize({}, {{"w", {31}, 8, {}}}, b).find("block size"), std::string::npos);
}

// Each malformation: the bytes of a valid file, one field changed, and the message that
// must come back (field name and, where the field has one, the byte offset).
struct Bad {
  const char* what;
  std::function<void(std::vector<uint8_t>&, const File&)> damage;
  std::vector<std::string> message;  // substrings, all required
};

TEST(Gguf, EveryMalformationRefusedWithItsMessage) {
  const auto s = sample_file(32);
  std::vector<uint8_t> good;
  ASSERT_EQ(serialize(s.kv, s.tensors, good), "");
  File ok;
  ASSERT_EQ(parse(good, ok), "");
  const TensorInfo& t0 = ok.tensors[0];
  // Byte offsets inside tensor info 0: name length (8) + name, n_dims (4), ne (8 each), type (4), offset (8).
  const uint64_t t0_ndims = t0.at + 8 + t0.name.size();
  const uint64_t t0_ne0 = t0_ndims + 4;
  const uint64_t t0_type = t0_ne0 + 8 * t0.n_dims;
  const uint64_t t0_off = t0_type + 4;
  const KeyValue& kv0 = ok.kv[0];
  const uint64_t kv0_type = kv0.at + 8 + kv0.key.size();
  const KeyValue* arr = ok.find("test.u32s");
  const uint64_t arr_count = arr->at + 8 + arr->key.size() + 4 + 4;
  const KeyValue* align = ok.find("general.alignment");
  const uint64_t align_value = align->at + 8 + align->key.size() + 4;

  const std::vector<Bad> cases = {
      {"bad magic", [](auto& b, auto&) { b[0] = 'X'; }, {"magic at byte 0", "not a GGUF file"}},
      {"version 2", [](auto& b, auto&) { patch(b, 4, 2, 4); }, {"version at byte 4", "unsupported GGUF version 2"}},
      {"big-endian", [](auto& b, auto&) { patch(b, 4, 0x03000000u, 4); }, {"big-endian"}},
      {"truncated header", [](auto& b, auto&) { b.resize(10); }, {"tensor_count at byte 8", "truncated"}},
      {"absurd kv_count", [](auto& b, auto&) { patch(b, 16, 1ull << 60, 8); }, {"kv_count at byte 16", "cannot fit"}},
      {"absurd tensor_count", [](auto& b, auto&) { patch(b, 8, ~0ull, 8); }, {"tensor_count at byte 8", "cannot fit"}},
      {"key length past end", [](auto& b, auto&) { patch(b, 24, 1ull << 40, 8); },
       {"kv[0] key at byte 24", "string length 1099511627776 runs past the end"}},
      {"unknown value type", [&](auto& b, auto&) { patch(b, kv0_type, 13, 4); },
       {"value type at byte " + std::to_string(kv0_type), "unknown GGUF value type 13"}},
      {"array count past end", [&](auto& b, auto&) { patch(b, arr_count, 1ull << 62, 8); },
       {"'test.u32s' count at byte " + std::to_string(arr_count), "cannot fit"}},
      {"alignment not a power of two", [&](auto& b, auto&) { patch(b, align_value, 48, 4); },
       {"general.alignment", "48 is not a power of two"}},
      {"n_dims 5", [&](auto& b, auto&) { patch(b, t0_ndims, 5, 4); },
       {"n_dims at byte " + std::to_string(t0_ndims), "5 dimensions"}},
      {"n_dims 0", [&](auto& b, auto&) { patch(b, t0_ndims, 0, 4); }, {"0 dimensions"}},
      {"ne past INT64_MAX", [&](auto& b, auto&) { patch(b, t0_ne0, 1ull << 63, 8); }, {"ne[0]", "exceeds INT64_MAX"}},
      {"element count overflow", [&](auto& b, auto&) { patch(b, t0_ne0 + 8, 1ull << 62, 8); },
       {"ne[1]", "element count overflows"}},
      {"unknown ggml type", [&](auto& b, auto&) { patch(b, t0_type, 36, 4); },
       {"type at byte " + std::to_string(t0_type), "unknown ggml type id 36"}},
      {"ne[0] not whole blocks", [&](auto& b, auto&) { patch(b, t0_ne0, 33, 8); },
       {"ne[0]", "not a multiple of the q8_0 block size 32"}},
      {"misaligned offset", [&](auto& b, auto&) { patch(b, t0_off, 8, 8); },
       {"offset at byte " + std::to_string(t0_off), "8 is not a multiple of the alignment 32"}},
      {"offset past end", [&](auto& b, auto&) { patch(b, t0_off, 1ull << 40, 8); }, {"runs past the end of the"}},
      {"overlapping tensors", [&](auto& b, const File& f) {
         const TensorInfo& t1 = f.tensors[1];
         patch(b, t1.at + 8 + t1.name.size() + 4 + 8 * t1.n_dims + 4, t0.offset, 8);
       }, {"overlaps tensor"}},
      {"truncated data", [](auto& b, const File& f) {
         b.resize(f.data_offset + f.tensors.back().offset + f.tensors.back().nbytes - 1);
       }, {"data", "runs past the end"}},
      {"bool byte 2", [&](auto& b, const File& f) {
         const KeyValue* k = f.find("test.bool");
         b[k->at + 8 + k->key.size() + 4] = 2;
       }, {"'test.bool' at byte", "bool byte 2"}},
  };
  for (const Bad& c : cases) {
    std::vector<uint8_t> b = good;
    c.damage(b, ok);
    File f;
    const std::string e = parse(b, f);
    EXPECT_FALSE(e.empty()) << c.what << ": accepted";
    for (const std::string& m : c.message) EXPECT_NE(e.find(m), std::string::npos) << c.what << ": " << e;
    EXPECT_TRUE(f.tensors.empty() && f.kv.empty()) << c.what << ": partial result left behind";
  }
}

TEST(Gguf, DuplicateKeyAndTensorNamesRefused) {
  std::vector<uint8_t> b;
  ASSERT_EQ(serialize({{"a", Value::uint(ValueType::u8, 1)}, {"a", Value::uint(ValueType::u8, 2)}}, {}, b), "");
  File f;
  EXPECT_NE(parse(b, f).find("duplicate key 'a'"), std::string::npos);
  ASSERT_EQ(serialize({}, {{"w", {32}, 8, std::vector<uint8_t>(34)}, {"w", {32}, 8, std::vector<uint8_t>(34)}}, b), "");
  EXPECT_NE(parse(b, f).find("duplicate tensor name 'w'"), std::string::npos);
}

TEST(Gguf, DeepArrayNestingRefusedWithoutRecursion) {
  Value v = Value::uint(ValueType::u8, 1);
  for (int i = 0; i < 6; ++i) v = Value::array(v.type, {v});
  std::vector<uint8_t> b;
  ASSERT_EQ(serialize({{"deep", v}}, {}, b), "");
  File f;
  EXPECT_NE(parse(b, f).find("nested more than 4 deep"), std::string::npos);
}

TEST(Gguf, MappedFileOpensWhatTheWriterWrote) {
  const auto s = sample_file(32);
  const std::string path = ::testing::TempDir() + "/qgate_gguf_test.gguf";
  ASSERT_EQ(write_file(path, s.kv, s.tensors), "");
  MappedFile m;
  ASSERT_EQ(m.open(path), "");
  const TensorInfo* t = m.file().find_tensor("blk.0.ffn_down.weight");
  ASSERT_NE(t, nullptr);
  const auto d = m.data(*t);
  ASSERT_EQ(d.size(), s.tensors[0].bytes.size());
  EXPECT_EQ(0, std::memcmp(d.data(), s.tensors[0].bytes.data(), d.size()));
  MappedFile missing;
  EXPECT_NE(missing.open(path + ".nope").find("No such file"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace qgate::gguf
