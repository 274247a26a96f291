// ggml's tensor type ids as GGUF stores them, with each type's block size and bytes per
// block, and the qgate format (oracle) behind it where there is one. The quantized types
// are the formats.inc rows that carry a ggml id.
// Source of the ids: ggml/include/ggml.h, enum ggml_type (ggml-org/llama.cpp, checked at
// commit 37b53fd, and ggml 0.23 for NVFP4 = 40, Q1_0 = 41, Q2_0 = 42, read off the shipped
// libggml-base.so's ggml_type_name; 4, 5, 31..33 and 36..38 are removed ids). Block sizes: ggml/src/ggml-common.h and ggml.c type_traits.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "oracles/formats/format.hpp"

namespace qgate::gguf {

struct GgmlType {
  uint32_t id;
  std::string_view name;  // ggml_type_name(): "f32", "q4_K", "iq2_xxs", ...
  int64_t block_elems;    // ggml_blck_size
  int64_t block_bytes;    // ggml_type_size
};

std::span<const GgmlType> all_ggml_types();
// nullptr for an id no GGUF file may carry (removed or unknown).
const GgmlType* find_ggml_type(uint32_t id);
// The qgate format that decodes this type exactly; nullptr when qgate has no oracle for it
// (f32, f16, bf16 and the integer types are plain element arrays, not quantized formats).
const FormatInfo* qgate_format(uint32_t ggml_id);

}  // namespace qgate::gguf
