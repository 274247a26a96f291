// Shared by the per-family format files: declarations of every format_<sym>() (from
// formats.inc) and the error helper. Not included outside oracles/formats.
#pragma once
#include <cstdio>
#include <string>

#include "oracles/formats/format.hpp"
#include "oracles/formats/geometry.hpp"

namespace qgate::formats {
#define QGATE_FORMAT(sym, ggml, family, elems, sub, bytes) const FormatInfo& format_##sym();
#include "oracles/formats/formats.inc"
#undef QGATE_FORMAT

// The first five members of a FormatInfo (id, name, ggml type, elements and bytes per
// block), taken from the format's formats.inc row, where they are stated once.
#define QGATE_FORMAT_HEAD(sym) \
  FormatId::sym, #sym, block::sym::ggml, block::sym::elems, block::sym::bytes

// Defines format_<sym>(): the formats.inc head, then the code levels, the zero code (-1:
// none), whether it is an activation format, the scale fields and the layout's source, its
// decode_<sym> / pack_<sym> / unpack_<sym>, and optionally the FormatInfo members after those
// (decode_tensor, code_valid, codes_per_block).
#define QGATE_DEFINE_FORMAT(sym, levels, zero_code, activation, fields, source, ...)                 \
  const FormatInfo& format_##sym() {                                                               \
    static const FormatInfo f{QGATE_FORMAT_HEAD(sym), levels, zero_code, activation, fields, source, \
                              decode_##sym, pack_##sym, unpack_##sym __VA_OPT__(, ) __VA_ARGS__};   \
    return f;                                                                                      \
  }

inline DecodeError non_finite(const char* fmt, const char* field, unsigned bits) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: non-finite scale %s (bits 0x%0*X)", fmt, field,
                bits > 0xFFFF ? 8 : (bits > 0xFF ? 4 : 2), bits);
  return {buf};
}
}  // namespace qgate::formats
