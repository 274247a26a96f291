// A GGUF tensor as a qgate weight: the rows of a tensor (ne[0] = K columns, the outer dims
// flattened into N rows) in the qgate format that decodes its ggml type, every block
// checked by that format's own block parser.
#pragma once
#include <string>

#include "io/gguf/gguf.hpp"

namespace qgate::gguf {

struct RowRange {
  uint64_t begin = 0, end = 0;  // half-open; end = 0 means "all rows"
};

// Parse "A:B" (half-open row range). Returns "" or why not.
std::string parse_rows(const std::string& text, RowRange& out);

// Returns "" or why the tensor cannot be a qgate weight: no such tensor (with the names
// there are), a ggml type qgate has no oracle for (by name), rows out of range, or a block
// its format's parser refuses (naming the row, block and file offset).
std::string load_weight(const MappedFile& m, const std::string& tensor, RowRange rows, QTensor& out);

}  // namespace qgate::gguf
