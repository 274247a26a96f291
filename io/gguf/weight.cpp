#include "io/gguf/weight.hpp"

#include <cstdlib>
#include <vector>

namespace qgate::gguf {

std::string parse_rows(const std::string& text, RowRange& out) {
  const size_t colon = text.find(':');
  auto num = [](const std::string& s, uint64_t& v) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) return false;
    v = std::strtoull(s.c_str(), nullptr, 10);
    return true;
  };
  if (colon == std::string::npos || !num(text.substr(0, colon), out.begin) || !num(text.substr(colon + 1), out.end) ||
      out.end <= out.begin)
    return "--rows wants A:B with A < B (rows A..B-1), got '" + text + "'";
  return {};
}

std::string load_weight(const MappedFile& m, const std::string& name, RowRange rows, QTensor& out) {
  const File& f = m.file();
  const TensorInfo* t = f.find_tensor(name);
  if (!t) {
    std::string have;
    for (size_t i = 0; i < f.tensors.size() && i < 6; ++i) have += (i ? ", " : "") + f.tensors[i].name;
    if (f.tensors.size() > 6) have += ", ... (qgate gguf list shows all " + std::to_string(f.tensors.size()) + ")";
    return "no tensor '" + name + "' in the file" + (have.empty() ? " (it has no tensors)" : "; it has " + have);
  }
  const FormatInfo* fmt = qgate_format(t->type);
  if (!fmt)
    return "tensor '" + name + "' has ggml type " + std::string(t->ggml->name) +
           ", which qgate has no oracle for (unsupported: plain element types are not quantized formats)";
  const uint64_t n = t->n(), k = t->k();
  if (n == 0 || k == 0) return "tensor '" + name + "' is empty (" + t->shape() + ")";
  if (rows.end == 0) rows = {0, n};
  if (rows.end > n)
    return "--rows " + std::to_string(rows.begin) + ":" + std::to_string(rows.end) + " is past the tensor's " +
           std::to_string(n) + " rows";
  const uint64_t blocks_per_row = k / static_cast<uint64_t>(fmt->block_elems);
  const uint64_t row_bytes = blocks_per_row * static_cast<uint64_t>(fmt->block_bytes);
  const auto data = m.data(*t);
  out = QTensor{};
  out.fmt = fmt;
  out.n = static_cast<int64_t>(rows.end - rows.begin);
  out.k = static_cast<int64_t>(k);
  out.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(rows.begin * row_bytes),
                   data.begin() + static_cast<std::ptrdiff_t>(rows.end * row_bytes));
  std::vector<double> v(static_cast<size_t>(fmt->block_elems)), mag(v.size());
  for (uint64_t r = 0; r < static_cast<uint64_t>(out.n); ++r)
    for (uint64_t b = 0; b < blocks_per_row; ++b) {
      const uint64_t at = r * row_bytes + b * static_cast<uint64_t>(fmt->block_bytes);
      if (auto e = fmt->decode_block(out.bytes.data() + at, v.data(), mag.data()))
        return "tensor '" + name + "' row " + std::to_string(rows.begin + r) + " block " + std::to_string(b) +
               " (file byte " + std::to_string(f.data_offset + t->offset + rows.begin * row_bytes + at) +
               "): " + e.message;
    }
  return {};
}

}  // namespace qgate::gguf
