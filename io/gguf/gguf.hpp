// GGUF version 3, read and written (the format: ggml/docs/gguf.md; ggml/src/gguf.cpp is the
// reference reader). Layout, all little-endian:
//   "GGUF" u32 version u64 tensor_count u64 kv_count
//   kv_count x { string key, u32 value_type, value }
//   tensor_count x { string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset }
//   padding to general.alignment (default 32), then the data section; each tensor's offset
//   is relative to the data section and a multiple of the alignment.
//   string = u64 length + bytes (no terminator); array = u32 element type + u64 count + elements.
//
// The reader trusts nothing: every length and count is checked against the bytes that are
// left before anything is allocated, every sum and product against overflow, and every
// refusal names the field and the byte offset where it was read.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/gguf/ggml_types.hpp"

namespace qgate::gguf {

inline constexpr uint32_t kVersion = 3;
inline constexpr uint32_t kDefaultAlignment = 32;
inline constexpr uint32_t kMaxDims = 4;           // GGML_MAX_DIMS
inline constexpr size_t kMaxNameBytes = 63;       // GGML_MAX_NAME - 1 (names are NUL-terminated in ggml)
inline constexpr int kMaxArrayNesting = 4;        // arrays of arrays: deeper is refused, never recursed into

enum class ValueType : uint32_t { u8 = 0, i8, u16, i16, u32, i32, f32, boolean, string, array, u64, i64, f64 };
std::string_view type_name(ValueType t);

struct Value {
  ValueType type = ValueType::u32;
  uint64_t bits = 0;          // scalars: the raw little-endian bits, zero-extended
  std::string str;            // string
  ValueType elem = ValueType::u8;  // array: element type
  std::vector<Value> items;   // array: elements

  static Value uint(ValueType t, uint64_t v);
  static Value sint(ValueType t, int64_t v);
  static Value f32(float v);
  static Value f64(double v);
  static Value boolean(bool v);
  static Value string(std::string s);
  static Value array(ValueType elem, std::vector<Value> items);

  bool operator==(const Value&) const = default;
  // A short rendering for listings: numbers, "quoted strings", [n items: first, ...].
  std::string to_string(size_t max_items = 8) const;
};

struct KeyValue {
  std::string key;
  Value value;
  uint64_t at = 0;  // byte offset of the key in the file (reader only)
};

struct TensorInfo {
  std::string name;
  uint32_t n_dims = 0;
  uint64_t ne[kMaxDims] = {1, 1, 1, 1};  // ne[0] is the contiguous (innermost) dimension
  uint32_t type = 0;                      // ggml type id
  uint64_t offset = 0;                    // relative to the data section
  // Filled by the reader:
  uint64_t at = 0;        // byte offset of this tensor info in the file
  uint64_t elements = 0;
  uint64_t nbytes = 0;
  const GgmlType* ggml = nullptr;

  // Rows and columns as a weight matrix: k = ne[0], n = the product of the outer dims.
  uint64_t k() const { return ne[0]; }
  uint64_t n() const { return ne[0] ? elements / ne[0] : 0; }
  std::string shape() const;  // "4096 x 11008" (ne order)
};

struct File {
  uint32_t version = kVersion;
  std::vector<KeyValue> kv;
  std::vector<TensorInfo> tensors;
  uint32_t alignment = kDefaultAlignment;
  uint64_t data_offset = 0;  // absolute offset of the data section
  const KeyValue* find(std::string_view key) const;
  const TensorInfo* find_tensor(std::string_view name) const;
};

// Parse a whole GGUF image. Returns "" or the reason the bytes are not a valid GGUF v3 file
// ("gguf: <field> at byte <offset>: <what is wrong>"). Never reads outside `bytes`.
std::string parse(std::span<const uint8_t> bytes, File& out);

// A GGUF file on disk, mapped read-only. open() parses it; data(t) is the tensor's bytes.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  // Returns "" or the reason (I/O or parse error, prefixed with the path).
  std::string open(const std::string& path);
  const File& file() const { return file_; }
  std::span<const uint8_t> bytes() const { return {base_, size_}; }
  std::span<const uint8_t> data(const TensorInfo& t) const;

 private:
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  File file_;
};

// ---- writer ----------------------------------------------------------------------------
struct TensorData {
  std::string name;
  std::vector<uint64_t> ne;  // ne[0] innermost, 1..4 dims
  uint32_t type = 0;
  std::vector<uint8_t> bytes;
};

// Serialize a GGUF v3 image. The alignment is the u32 value of a "general.alignment" entry
// in kv when there is one, else 32. Returns "" or why the input cannot be written (a
// tensor whose byte count does not match its shape and type, an unknown type, ...).
std::string serialize(const std::vector<KeyValue>& kv, const std::vector<TensorData>& tensors,
                      std::vector<uint8_t>& out);
// serialize() and write the image to `path` (temp file + rename).
std::string write_file(const std::string& path, const std::vector<KeyValue>& kv,
                       const std::vector<TensorData>& tensors);

}  // namespace qgate::gguf
