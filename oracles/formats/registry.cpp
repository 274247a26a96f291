#include <algorithm>
#include <array>
#include <cctype>

#include "oracles/formats/format_impl.hpp"

namespace qgate {

std::span<const FormatInfo* const> all_formats() {
  static const std::array<const FormatInfo*, static_cast<size_t>(FormatId::count)> table = {
#define QGATE_FORMAT(sym, ggml, family, elems, sub, bytes) &formats::format_##sym(),
#include "oracles/formats/formats.inc"
#undef QGATE_FORMAT
  };
  return table;
}

const FormatInfo& format_info(FormatId id) { return *all_formats()[static_cast<size_t>(id)]; }

const FormatInfo* find_format(std::string_view name) {
  for (const FormatInfo* f : all_formats()) {
    if (f->name.size() == name.size() &&
        std::equal(name.begin(), name.end(), f->name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        }))
      return f;
  }
  return nullptr;
}

DecodeError block_tensor_bytes(const FormatInfo& f, int64_t n, int64_t k, size_t& bytes) {
  if (f.tensor_level()) return {std::string(f.name) + ": not a block format"};
  if (n < 0 || k < 0) return {"negative shape"};
  if (k % f.block_elems != 0)
    return {std::string(f.name) + ": k=" + std::to_string(k) + " is not a multiple of the block size " +
            std::to_string(f.block_elems)};
  const long double total = static_cast<long double>(n) * (k / f.block_elems) * f.block_bytes;
  if (total > static_cast<long double>(1ull << 40)) return {"shape too large"};
  bytes = static_cast<size_t>(n) * static_cast<size_t>(k / f.block_elems) * f.block_bytes;
  return {};
}

DecodeError decode_tensor(const QTensor& t, std::vector<double>& value, std::vector<double>& mag) {
  if (t.fmt == nullptr) return {"tensor has no format"};
  if (t.fmt->tensor_level()) return t.fmt->decode_tensor(t, value, mag);
  size_t need = 0;
  if (auto e = block_tensor_bytes(*t.fmt, t.n, t.k, need)) return e;
  if (t.bytes.size() != need)
    return {std::string(t.fmt->name) + ": tensor has " + std::to_string(t.bytes.size()) +
            " bytes, shape needs " + std::to_string(need)};
  value.assign(static_cast<size_t>(t.n * t.k), 0.0);
  mag.assign(value.size(), 0.0);
  const int64_t nb = t.k / t.fmt->block_elems;
  for (int64_t r = 0; r < t.n; ++r) {
    for (int64_t b = 0; b < nb; ++b) {
      const size_t blk = static_cast<size_t>(r * nb + b);
      const size_t off = static_cast<size_t>(r * t.k + b * t.fmt->block_elems);
      if (auto e = t.fmt->decode_block(t.bytes.data() + blk * t.fmt->block_bytes, value.data() + off,
                                       mag.data() + off)) {
        e.message += " (row " + std::to_string(r) + ", block " + std::to_string(b) + ")";
        return e;
      }
    }
  }
  return {};
}

}  // namespace qgate
