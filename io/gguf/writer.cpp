// The GGUF v3 writer (the fixtures' source: no file in the tests comes from elsewhere),
// and the small shared pieces of the model: value constructors, renderings, lookups.
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "io/gguf/gguf.hpp"

namespace qgate::gguf {

std::string_view type_name(ValueType t) {
  static constexpr std::string_view n[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                           "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(n) ? n[i] : "unknown";
}

Value Value::uint(ValueType t, uint64_t v) {
  Value x;
  x.type = t;
  x.bits = v;
  return x;
}
Value Value::sint(ValueType t, int64_t v) {
  const int bytes = t == ValueType::i8 ? 1 : t == ValueType::i16 ? 2 : t == ValueType::i32 ? 4 : 8;
  const uint64_t mask = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  return uint(t, static_cast<uint64_t>(v) & mask);
}
Value Value::f32(float v) { return uint(ValueType::f32, std::bit_cast<uint32_t>(v)); }
Value Value::f64(double v) { return uint(ValueType::f64, std::bit_cast<uint64_t>(v)); }
Value Value::boolean(bool v) { return uint(ValueType::boolean, v ? 1 : 0); }
Value Value::string(std::string s) {
  Value x;
  x.type = ValueType::string;
  x.str = std::move(s);
  return x;
}
Value Value::array(ValueType elem, std::vector<Value> items) {
  Value x;
  x.type = ValueType::array;
  x.elem = elem;
  x.items = std::move(items);
  return x;
}

namespace {
int64_t sign_extend(uint64_t bits, int bytes) {
  const int shift = 64 - 8 * bytes;
  return static_cast<int64_t>(bits << shift) >> shift;
}
std::string quoted(const std::string& s, size_t max) {
  std::string o = "\"";
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch == '"' || ch == '\\') o += '\\', o += static_cast<char>(ch);
    else if (ch < 0x20 || ch == 0x7F) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", ch);
      o += b;
    } else o += static_cast<char>(ch);
  }
  if (s.size() > max) o += "...";
  return o + "\"";
}
}  // namespace

std::string Value::to_string(size_t max_items) const {
  char b[64];
  switch (type) {
    case ValueType::u8: case ValueType::u16: case ValueType::u32: case ValueType::u64:
      return std::to_string(bits);
    case ValueType::i8: return std::to_string(sign_extend(bits, 1));
    case ValueType::i16: return std::to_string(sign_extend(bits, 2));
    case ValueType::i32: return std::to_string(sign_extend(bits, 4));
    case ValueType::i64: return std::to_string(static_cast<int64_t>(bits));
    case ValueType::f32: std::snprintf(b, sizeof b, "%.9g", std::bit_cast<float>(static_cast<uint32_t>(bits))); return b;
    case ValueType::f64: std::snprintf(b, sizeof b, "%.17g", std::bit_cast<double>(bits)); return b;
    case ValueType::boolean: return bits ? "true" : "false";
    case ValueType::string: return quoted(str, 80);
    case ValueType::array: {
      std::string o = "[" + std::to_string(items.size()) + " x " + std::string(type_name(elem));
      for (size_t i = 0; i < items.size() && i < max_items; ++i) o += (i ? ", " : ": ") + items[i].to_string(2);
      if (items.size() > max_items) o += ", ...";
      return o + "]";
    }
  }
  return "?";
}

std::string TensorInfo::shape() const {
  std::string s;
  for (uint32_t d = 0; d < n_dims; ++d) s += (d ? " x " : "") + std::to_string(ne[d]);
  return s;
}

const KeyValue* File::find(std::string_view key) const {
  for (const KeyValue& kv : kv)
    if (kv.key == key) return &kv;
  return nullptr;
}
const TensorInfo* File::find_tensor(std::string_view name) const {
  for (const TensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

struct Out {
  std::vector<uint8_t>& b;
  void le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void str(const std::string& s) {
    le(s.size(), 8);
    b.insert(b.end(), s.begin(), s.end());
  }
  std::string value(const Value& v, const std::string& where) {
    switch (v.type) {
      case ValueType::u8: case ValueType::i8: case ValueType::boolean: le(v.bits, 1); break;
      case ValueType::u16: case ValueType::i16: le(v.bits, 2); break;
      case ValueType::u32: case ValueType::i32: case ValueType::f32: le(v.bits, 4); break;
      case ValueType::u64: case ValueType::i64: case ValueType::f64: le(v.bits, 8); break;
      case ValueType::string: str(v.str); break;
      case ValueType::array:
        le(static_cast<uint32_t>(v.elem), 4);
        le(v.items.size(), 8);
        for (const Value& x : v.items) {
          if (x.type != v.elem) return where + ": array of " + std::string(type_name(v.elem)) + " holds a " +
                                       std::string(type_name(x.type));
          if (auto e = value(x, where); !e.empty()) return e;
        }
        break;
      default: return where + ": unknown value type";
    }
    return {};
  }
  void pad_to(uint64_t alignment) {
    while (b.size() % alignment) b.push_back(0);
  }
};

}  // namespace

std::string serialize(const std::vector<KeyValue>& kv, const std::vector<TensorData>& tensors,
                      std::vector<uint8_t>& bytes) {
  bytes.clear();
  uint64_t alignment = kDefaultAlignment;
  for (const KeyValue& e : kv)
    if (e.key == "general.alignment") {
      if (e.value.type != ValueType::u32 || e.value.bits == 0 || (e.value.bits & (e.value.bits - 1)))
        return "general.alignment must be a u32 power of two";
      alignment = e.value.bits;
    }
  Out o{bytes};
  o.b.insert(o.b.end(), {'G', 'G', 'U', 'F'});
  o.le(kVersion, 4);
  o.le(tensors.size(), 8);
  o.le(kv.size(), 8);
  for (const KeyValue& e : kv) {
    o.str(e.key);
    o.le(static_cast<uint32_t>(e.value.type), 4);
    if (auto err = o.value(e.value, "kv '" + e.key + "'"); !err.empty()) return err;
  }
  uint64_t offset = 0;
  std::vector<uint64_t> offsets;
  for (const TensorData& t : tensors) {
    const GgmlType* g = find_ggml_type(t.type);
    if (!g) return "tensor '" + t.name + "': unknown ggml type id " + std::to_string(t.type);
    if (t.ne.empty() || t.ne.size() > kMaxDims) return "tensor '" + t.name + "': 1..4 dimensions";
    uint64_t elements = 1;
    for (uint64_t d : t.ne) elements *= d;
    if (t.ne[0] % static_cast<uint64_t>(g->block_elems))
      return "tensor '" + t.name + "': ne[0] is not a multiple of the block size";
    const uint64_t nbytes = elements / static_cast<uint64_t>(g->block_elems) * static_cast<uint64_t>(g->block_bytes);
    if (nbytes != t.bytes.size())
      return "tensor '" + t.name + "': " + std::to_string(t.bytes.size()) + " bytes, shape and type need " +
             std::to_string(nbytes);
    o.str(t.name);
    o.le(t.ne.size(), 4);
    for (uint64_t d : t.ne) o.le(d, 8);
    o.le(t.type, 4);
    o.le(offset, 8);
    offsets.push_back(offset);
    offset += (nbytes + alignment - 1) / alignment * alignment;
  }
  o.pad_to(alignment);
  const uint64_t data_start = o.b.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    o.b.resize(data_start + offsets[i], 0);
    o.b.insert(o.b.end(), tensors[i].bytes.begin(), tensors[i].bytes.end());
  }
  if (!tensors.empty()) o.pad_to(alignment);
  return {};
}

std::string write_file(const std::string& path, const std::vector<KeyValue>& kv,
                       const std::vector<TensorData>& tensors) {
  std::vector<uint8_t> bytes;
  if (auto e = serialize(kv, tensors, bytes); !e.empty()) return e;
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
      std::remove(tmp.c_str());
      return path + ": cannot write";
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return path + ": cannot rename into place";
  }
  return {};
}

}  // namespace qgate::gguf
