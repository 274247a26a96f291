// What a quantized format is, to the rest of qgate: its block layout, its exact fp64
// decoder, and the hooks a generator needs to build valid blocks from chosen codes and
// scales. One FormatInfo per entry of formats.inc.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace qgate {

enum class FormatId : int {
#define QGATE_FORMAT(sym, ggml, family, elems, sub, bytes) sym,
#include "oracles/formats/formats.inc"
#undef QGATE_FORMAT
  count
};

// How a scale-like field is stored; the generator picks values per kind.
enum class FieldKind {
  f16,    // IEEE binary16 bits (d, dmin, m)
  f32,    // binary32 bits (q8_K d, fp8 block scale)
  e8m0,   // OCP MX shared exponent byte
  ue4m3,  // ggml's unsigned E4M3 scale byte (nvfp4; scalar::from_ue4m3)
  u4,     // unsigned 4-bit sub-block scale or min (q2_K)
  u6,     // unsigned 6-bit sub-block scale or min (q4_K, q5_K)
  s6,     // 6-bit field read as value-32 (q3_K scales)
  s8,     // int8 scale (q6_K)
  s16,    // int16 (q8_K bsums)
  ubits,  // an unsigned field of FieldSpec::bits bits (IQ sign indices, scale nibbles, delta signs)
};

struct FieldSpec {
  const char* name;
  FieldKind kind;
  int count;
  bool derived = false;  // computed from codes (q8_1 s, q8_K bsums), not free to choose
  int bits = 0;          // FieldKind::ubits only
};

// A block's contents in format-independent form: the codes (one per element, or for
// codebook formats one grid index per group: FormatInfo::codes_per_block) and the raw bit
// pattern of every field, in FieldSpec order with each spec expanded to `count` entries.
struct BlockFields {
  std::vector<int32_t> codes;
  std::vector<uint32_t> fields;
};

// Result of decoding: value[i] is the exact element; mag[i] = |a_i| + |c_i| for the
// format's natural split value = a - c (scale part and offset part). A kernel's rounding
// errors scale with mag, not with |value|, when the split cancels.
struct DecodeError {
  std::string message;  // empty = ok
  explicit operator bool() const { return !message.empty(); }
};

struct FormatInfo {
  FormatId id;
  std::string_view name;      // GGUF type name, lower case (q4_K keeps its capital K)
  int ggml_type;              // ggml_type enum value, -1 if not a GGUF type
  int block_elems;            // 0 for tensor-level formats (gptq_int4)
  int block_bytes;            // 0 for tensor-level formats
  int code_levels;            // codes are 0..code_levels-1
  int zero_code;              // code whose value is 0 when offsets are 0, -1 if none
  bool is_activation;         // q8_1, q8_K: produced by activation quantization
  std::span<const FieldSpec> fields;
  std::string_view source;    // where the layout is defined

  // Exact decode of one block. Returns an error for non-finite scales.
  DecodeError (*decode_block)(const uint8_t* blk, double* value, double* mag);
  // Build a block from codes and fields; fields marked derived are computed here.
  void (*pack_block)(const BlockFields& in, uint8_t* blk);
  // Inverse of pack_block (for round-trip properties and one-hot diagnostics).
  void (*unpack_block)(const uint8_t* blk, BlockFields& out);
  // Tensor-level formats only (block_elems == 0): exact decode of a whole QTensor.
  DecodeError (*decode_tensor)(const struct QTensor& t, std::vector<double>& value,
                               std::vector<double>& mag) = nullptr;
  // Codes that decode to a non-finite element (fp8 NaN/Inf bytes) are not valid for
  // generation; nullptr = every code in 0..code_levels-1 is valid.
  bool (*code_valid)(int32_t code) = nullptr;
  // Codes per block when a code is not one element (IQ grid indices per 4 or 8
  // elements); 0 = one code per element.
  int codes_per_block = 0;
  int codes() const { return codes_per_block ? codes_per_block : block_elems; }

  bool tensor_level() const { return block_elems == 0; }
  int field_count() const {
    int n = 0;
    for (const auto& f : fields) n += f.count;
    return n;
  }
};

std::span<const FormatInfo* const> all_formats();
const FormatInfo& format_info(FormatId id);
// Case-insensitive lookup by GGUF name; nullptr when unknown.
const FormatInfo* find_format(std::string_view name);

// A weight tensor of n rows (outputs) by k columns (inputs) in one format. Block formats:
// row-major, each row k/block_elems blocks. gptq_int4: the container of gptq.hpp.
struct QTensor {
  const FormatInfo* fmt = nullptr;
  int64_t n = 0, k = 0;
  std::vector<uint8_t> bytes;
};

// Exact decode of a whole tensor into value/mag (n*k each, row-major [n][k]).
DecodeError decode_tensor(const QTensor& t, std::vector<double>& value, std::vector<double>& mag);
// Bytes a block-format tensor of this shape occupies; error if k is not a whole number of blocks.
DecodeError block_tensor_bytes(const FormatInfo& f, int64_t n, int64_t k, size_t& bytes);

}  // namespace qgate
