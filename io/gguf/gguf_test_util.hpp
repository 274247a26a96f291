// Test helpers for the GGUF tests: a sample file made by the project's own writer (every
// value type, nested arrays, tensors of several types and ranks) and a field patcher.
#pragma once
#include <cstdint>
#include <vector>

#include "io/gguf/gguf.hpp"

namespace qgate::gguf::test {

struct Sample {
  std::vector<KeyValue> kv;
  std::vector<TensorData> tensors;
};

inline std::vector<uint8_t> pattern_bytes(size_t n, uint32_t salt) {
  std::vector<uint8_t> b(n);
  uint32_t x = salt * 2654435761u + 1;
  for (auto& v : b) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    v = static_cast<uint8_t>(x);
  }
  return b;
}

// alignment 0 = no general.alignment entry (default 32).
inline Sample sample_file(uint32_t alignment) {
  Sample s;
  s.kv.push_back({"general.architecture", Value::string("llama")});
  s.kv.push_back({"general.name", Value::string("qgate fixture")});
  if (alignment) s.kv.push_back({"general.alignment", Value::uint(ValueType::u32, alignment)});
  s.kv.push_back({"test.u8", Value::uint(ValueType::u8, 200)});
  s.kv.push_back({"test.i8", Value::sint(ValueType::i8, -5)});
  s.kv.push_back({"test.u16", Value::uint(ValueType::u16, 65535)});
  s.kv.push_back({"test.i16", Value::sint(ValueType::i16, -300)});
  s.kv.push_back({"test.i32", Value::sint(ValueType::i32, -70000)});
  s.kv.push_back({"test.f32", Value::f32(1.5f)});
  s.kv.push_back({"test.bool", Value::boolean(true)});
  s.kv.push_back({"test.u64", Value::uint(ValueType::u64, 1ull << 40)});
  s.kv.push_back({"test.i64", Value::sint(ValueType::i64, -(1ll << 40))});
  s.kv.push_back({"test.f64", Value::f64(-0.25)});
  s.kv.push_back({"test.u32s", Value::array(ValueType::u32, {Value::uint(ValueType::u32, 7), Value::uint(ValueType::u32, 9)})});
  s.kv.push_back({"test.strings", Value::array(ValueType::string, {Value::string("a"), Value::string(""), Value::string("tok\n")})});
  s.kv.push_back({"test.empty", Value::array(ValueType::f32, {})});
  s.kv.push_back({"test.nested", Value::array(ValueType::array, {
      Value::array(ValueType::u32, {Value::uint(ValueType::u32, 1), Value::uint(ValueType::u32, 2)}),
      Value::array(ValueType::u32, {Value::uint(ValueType::u32, 3)})})});
  // q8_0 [k=64, n=3], q4_K [256, 2], f32 [5], f16 [4, 3, 2] (3-D), mxfp4 [32, 2, 1, 2] (4-D)
  s.tensors.push_back({"blk.0.ffn_down.weight", {64, 3}, 8, pattern_bytes(3 * 2 * 34, 1)});
  s.tensors.push_back({"blk.0.attn_q.weight", {256, 2}, 12, pattern_bytes(2 * 144, 2)});
  s.tensors.push_back({"blk.0.attn_norm.weight", {5}, 0, pattern_bytes(20, 3)});
  s.tensors.push_back({"blk.0.f16_3d", {4, 3, 2}, 1, pattern_bytes(48, 4)});
  s.tensors.push_back({"blk.0.mxfp4_4d", {32, 2, 1, 2}, 39, pattern_bytes(4 * 17, 5)});
  return s;
}

inline void patch(std::vector<uint8_t>& b, uint64_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.at(at + i) = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace qgate::gguf::test
