// The GGUF v3 reader. A Cursor reads little-endian fields and refuses any read past the
// end; every count is bounded by the bytes left before a container is sized from it.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include "io/gguf/gguf.hpp"

namespace qgate::gguf {
namespace {

struct ParseError {
  std::string message;
};

[[noreturn]] void fail(uint64_t at, const std::string& field, const std::string& what) {
  throw ParseError{"gguf: " + field + " at byte " + std::to_string(at) + ": " + what};
}

// Smallest encoding of one value of each type: bounds element counts by the bytes left.
uint64_t min_encoded_bytes(ValueType t) {
  switch (t) {
    case ValueType::u8: case ValueType::i8: case ValueType::boolean: return 1;
    case ValueType::u16: case ValueType::i16: return 2;
    case ValueType::u32: case ValueType::i32: case ValueType::f32: return 4;
    case ValueType::u64: case ValueType::i64: case ValueType::f64: case ValueType::string: return 8;
    case ValueType::array: return 12;
  }
  return 1;
}

bool valid_type(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::f64); }

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> b) : b_(b) {}
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return b_.size() - pos_; }
  uint64_t size() const { return b_.size(); }

  void need(uint64_t n, const std::string& field) const {
    if (n > left())
      fail(pos_, field, "truncated: needs " + std::to_string(n) + " bytes, " + std::to_string(left()) +
                            " left in a " + std::to_string(b_.size()) + "-byte file");
  }
  uint64_t le(int bytes, const std::string& field) {
    need(static_cast<uint64_t>(bytes), field);
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(b_[pos_ + i]) << (8 * i);
    pos_ += static_cast<uint64_t>(bytes);
    return v;
  }
  uint32_t u32(const std::string& field) { return static_cast<uint32_t>(le(4, field)); }
  uint64_t u64(const std::string& field) { return le(8, field); }
  std::string str(const std::string& field) {
    const uint64_t at = pos_;
    const uint64_t n = u64(field + " length");
    if (n > left())
      fail(at, field, "string length " + std::to_string(n) + " runs past the end of the file (" +
                          std::to_string(left()) + " bytes left)");
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), static_cast<size_t>(n));
    pos_ += n;
    return s;
  }
  Value value(ValueType t, const std::string& field, int depth) {
    Value v;
    v.type = t;
    switch (t) {
      case ValueType::u8: case ValueType::i8: v.bits = le(1, field); break;
      case ValueType::boolean: {
        const uint64_t at = pos_;
        v.bits = le(1, field);
        if (v.bits > 1) fail(at, field, "bool byte " + std::to_string(v.bits) + " is neither 0 nor 1");
        break;
      }
      case ValueType::u16: case ValueType::i16: v.bits = le(2, field); break;
      case ValueType::u32: case ValueType::i32: case ValueType::f32: v.bits = le(4, field); break;
      case ValueType::u64: case ValueType::i64: case ValueType::f64: v.bits = le(8, field); break;
      case ValueType::string: v.str = str(field); break;
      case ValueType::array: {
        const uint64_t at = pos_;
        if (depth >= kMaxArrayNesting)
          fail(at, field, "arrays nested more than " + std::to_string(kMaxArrayNesting) + " deep");
        const uint32_t et = u32(field + " element type");
        if (!valid_type(et)) fail(at, field + " element type", "unknown GGUF value type " + std::to_string(et));
        v.elem = static_cast<ValueType>(et);
        const uint64_t count_at = pos_;
        const uint64_t n = u64(field + " count");
        if (n > left() / min_encoded_bytes(v.elem))
          fail(count_at, field + " count",
               std::to_string(n) + " elements of " + std::string(type_name(v.elem)) + " cannot fit in the " +
                   std::to_string(left()) + " bytes left");
        v.items.reserve(static_cast<size_t>(n));
        for (uint64_t i = 0; i < n; ++i) v.items.push_back(value(v.elem, field + "[" + std::to_string(i) + "]", depth + 1));
        break;
      }
    }
    return v;
  }

 private:
  std::span<const uint8_t> b_;
  uint64_t pos_ = 0;
};

// a * b, or fail when it overflows `limit`.
uint64_t checked_mul(uint64_t a, uint64_t b, uint64_t limit, uint64_t at, const std::string& field,
                     const std::string& what) {
  if (a != 0 && b > limit / a) fail(at, field, what + " overflows");
  return a * b;
}

void parse_impl(std::span<const uint8_t> bytes, File& f) {
  Cursor c(bytes);
  c.need(4, "magic");
  if (std::memcmp(bytes.data(), "GGUF", 4) != 0) {
    char seen[32];
    std::snprintf(seen, sizeof seen, "%02x %02x %02x %02x", bytes[0], bytes[1], bytes[2], bytes[3]);
    fail(0, "magic", std::string("not a GGUF file (first bytes ") + seen + ", want 47 47 55 46 \"GGUF\")");
  }
  c.le(4, "magic");
  f.version = c.u32("version");
  if (f.version != kVersion) {
    std::string why = "unsupported GGUF version " + std::to_string(f.version) + " (this reader reads version 3)";
    if (f.version == 0x03000000u) why += "; the file looks big-endian, which is not supported";
    fail(4, "version", why);
  }
  const uint64_t tensor_count = c.u64("tensor_count");
  const uint64_t kv_count = c.u64("kv_count");
  // Minimal encodings: a kv is key length + type + 1 byte; a tensor info is name length +
  // n_dims + one dim + type + offset.
  if (kv_count > c.left() / 13)
    fail(16, "kv_count", std::to_string(kv_count) + " entries cannot fit in the " + std::to_string(c.left()) +
                             " bytes left (at least 13 bytes each)");
  if (tensor_count > c.left() / 32)
    fail(8, "tensor_count", std::to_string(tensor_count) + " tensor infos cannot fit in the " +
                                std::to_string(c.left()) + " bytes left (at least 32 bytes each)");

  f.kv.clear();
  f.kv.reserve(static_cast<size_t>(kv_count));
  std::set<std::string, std::less<>> keys;
  for (uint64_t i = 0; i < kv_count; ++i) {
    KeyValue kv;
    kv.at = c.pos();
    const std::string field = "kv[" + std::to_string(i) + "]";
    kv.key = c.str(field + " key");
    if (kv.key.empty()) fail(kv.at, field + " key", "empty key");
    if (!keys.insert(kv.key).second) fail(kv.at, field + " key", "duplicate key '" + kv.key + "'");
    const uint64_t type_at = c.pos();
    const uint32_t t = c.u32(field + " '" + kv.key + "' value type");
    if (!valid_type(t))
      fail(type_at, field + " '" + kv.key + "' value type", "unknown GGUF value type " + std::to_string(t));
    kv.value = c.value(static_cast<ValueType>(t), field + " '" + kv.key + "'", 0);
    f.kv.push_back(std::move(kv));
  }

  f.alignment = kDefaultAlignment;
  if (const KeyValue* a = f.find("general.alignment")) {
    if (a->value.type != ValueType::u32)
      fail(a->at, "general.alignment", "has type " + std::string(type_name(a->value.type)) + ", must be u32");
    const uint64_t v = a->value.bits;
    if (v == 0 || (v & (v - 1)) != 0)
      fail(a->at, "general.alignment", std::to_string(v) + " is not a power of two");
    f.alignment = static_cast<uint32_t>(v);
  }

  f.tensors.clear();
  f.tensors.reserve(static_cast<size_t>(tensor_count));
  std::set<std::string, std::less<>> names;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    TensorInfo t;
    t.at = c.pos();
    const std::string field = "tensor[" + std::to_string(i) + "]";
    t.name = c.str(field + " name");
    const std::string tf = field + " '" + t.name + "'";
    if (t.name.empty()) fail(t.at, field + " name", "empty tensor name");
    if (t.name.size() > kMaxNameBytes)
      fail(t.at, field + " name", "name of " + std::to_string(t.name.size()) + " bytes exceeds ggml's " +
                                      std::to_string(kMaxNameBytes));
    if (!names.insert(t.name).second) fail(t.at, field + " name", "duplicate tensor name '" + t.name + "'");
    const uint64_t dims_at = c.pos();
    t.n_dims = c.u32(tf + " n_dims");
    if (t.n_dims == 0 || t.n_dims > kMaxDims)
      fail(dims_at, tf + " n_dims", std::to_string(t.n_dims) + " dimensions (must be 1.." + std::to_string(kMaxDims) + ")");
    t.elements = 1;
    for (uint32_t d = 0; d < t.n_dims; ++d) {
      const uint64_t at = c.pos();
      t.ne[d] = c.u64(tf + " ne[" + std::to_string(d) + "]");
      if (t.ne[d] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        fail(at, tf + " ne[" + std::to_string(d) + "]", std::to_string(t.ne[d]) + " exceeds INT64_MAX");
      t.elements = checked_mul(t.elements, t.ne[d], static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), at,
                               tf + " ne[" + std::to_string(d) + "]", "element count");
    }
    const uint64_t type_at = c.pos();
    t.type = c.u32(tf + " type");
    t.ggml = find_ggml_type(t.type);
    if (!t.ggml)
      fail(type_at, tf + " type", "unknown ggml type id " + std::to_string(t.type) +
                                      " (known: ggml.h ids 0..30, 34, 35, 39; 4, 5, 31..33, 36..38 were removed)");
    if (t.ne[0] % static_cast<uint64_t>(t.ggml->block_elems) != 0)
      fail(dims_at, tf + " ne[0]", std::to_string(t.ne[0]) + " is not a multiple of the " +
                                       std::string(t.ggml->name) + " block size " + std::to_string(t.ggml->block_elems));
    t.nbytes = checked_mul(t.elements / static_cast<uint64_t>(t.ggml->block_elems),
                           static_cast<uint64_t>(t.ggml->block_bytes), std::numeric_limits<uint64_t>::max(), dims_at,
                           tf, "byte size");
    const uint64_t off_at = c.pos();
    t.offset = c.u64(tf + " offset");
    if (t.offset % f.alignment != 0)
      fail(off_at, tf + " offset", std::to_string(t.offset) + " is not a multiple of the alignment " +
                                       std::to_string(f.alignment));
    f.tensors.push_back(std::move(t));
  }

  // Data section: the end of the tensor infos rounded up to the alignment.
  const uint64_t end_infos = c.pos();
  const uint64_t pad = (f.alignment - end_infos % f.alignment) % f.alignment;
  f.data_offset = end_infos + pad;
  if (!f.tensors.empty() && f.data_offset > c.size())
    fail(end_infos, "data section", "padding to the alignment " + std::to_string(f.alignment) +
                                        " runs past the end of the " + std::to_string(c.size()) + "-byte file");
  const uint64_t data_size = f.data_offset <= c.size() ? c.size() - f.data_offset : 0;
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& t : f.tensors) {
    if (t.offset > data_size || t.nbytes > data_size - t.offset)
      fail(f.data_offset + t.offset, "tensor '" + t.name + "' data",
           "offset " + std::to_string(t.offset) + " + " + std::to_string(t.nbytes) + " bytes runs past the end of the " +
               std::to_string(data_size) + "-byte data section");
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const TensorInfo& a = *by_offset[i - 1];
    const TensorInfo& b = *by_offset[i];
    if (a.nbytes > 0 && b.nbytes > 0 && a.offset + a.nbytes > b.offset)
      fail(b.at, "tensor '" + b.name + "' offset",
           std::to_string(b.offset) + " overlaps tensor '" + a.name + "' (" + std::to_string(a.offset) + ".." +
               std::to_string(a.offset + a.nbytes) + ")");
  }
}

}  // namespace

std::string parse(std::span<const uint8_t> bytes, File& out) {
  out = File{};
  try {
    parse_impl(bytes, out);
  } catch (const ParseError& e) {
    out = File{};
    return e.message;
  }
  return {};
}

MappedFile::~MappedFile() {
  if (map_) munmap(map_, size_);
}

std::string MappedFile::open(const std::string& path) {
  if (map_) {
    munmap(map_, size_);
    map_ = nullptr;
  }
  base_ = nullptr;
  size_ = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return path + ": " + std::strerror(errno);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return path + ": not a regular file";
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    map_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      const std::string e = std::strerror(errno);
      ::close(fd);
      size_ = 0;
      return path + ": cannot map: " + e;
    }
    base_ = static_cast<const uint8_t*>(map_);
  }
  ::close(fd);
  static const uint8_t kEmpty[1] = {0};
  if (std::string e = parse(size_ ? bytes() : std::span<const uint8_t>(kEmpty, 0), file_); !e.empty())
    return path + ": " + e;
  return {};
}

std::span<const uint8_t> MappedFile::data(const TensorInfo& t) const {
  // parse() proved data_offset + offset + nbytes <= size_.
  return {base_ + file_.data_offset + t.offset, static_cast<size_t>(t.nbytes)};
}

}  // namespace qgate::gguf
