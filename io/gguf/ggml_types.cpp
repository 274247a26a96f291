#include "io/gguf/ggml_types.hpp"

#include <vector>

namespace qgate::gguf {

std::span<const GgmlType> all_ggml_types() {
  // The plain element types, then every format of oracles/formats/formats.inc that GGUF
  // stores (its ggml id, geometry and name as stated there, once).
  static const std::vector<GgmlType> t = [] {
    std::vector<GgmlType> v = {{0, "f32", 1, 4},  {1, "f16", 1, 2},  {24, "i8", 1, 1},   {25, "i16", 1, 2},
                               {26, "i32", 1, 4}, {27, "i64", 1, 8}, {28, "f64", 1, 8}, {30, "bf16", 1, 2}};
#define QGATE_FORMAT(sym, ggml, family, elems, sub, bytes) \
  if ((ggml) >= 0) v.push_back({static_cast<uint32_t>(ggml), #sym, elems, bytes});
#include "oracles/formats/formats.inc"
#undef QGATE_FORMAT
    return v;
  }();
  return t;
}

const GgmlType* find_ggml_type(uint32_t id) {
  for (const GgmlType& g : all_ggml_types())
    if (g.id == id) return &g;
  return nullptr;
}

const FormatInfo* qgate_format(uint32_t ggml_id) {
  for (const FormatInfo* f : all_formats())
    if (f->ggml_type >= 0 && static_cast<uint32_t>(f->ggml_type) == ggml_id) return f;
  return nullptr;
}

}  // namespace qgate::gguf
