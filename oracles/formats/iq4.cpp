// IQ4 non-linear 4-bit formats: iq4_nl (32-element blocks) and iq4_xs (256-element
// super-blocks with 6-bit sub-block scales). Layouts: ggml src/ggml-common.h (block_iq4_nl,
// block_iq4_xs); values: src/ggml-quants.c dequantize_row_iq4_nl / dequantize_row_iq4_xs;
// codebook kvalues_iq4nl (oracles/formats/iq4_tables.cpp).
//
// A code is one element's 4-bit index into kvalues_iq4nl (codes_per_block 0, 16 levels).
// No table value is 0 (the nearest are 1 and -10), so there is no zero code.
//
// Element order, decoded per element from these formulas:
//   iq4_nl: element i (0..31) is the low nibble of qs[i] for i < 16, the high nibble of
//           qs[i-16] for i >= 16 (the q4_0 order).   x = d * kvalues[code]
//   iq4_xs: element e = 32*ib + l (sub-block ib 0..7, l 0..31) is the low (l < 16) or high
//           (l >= 16) nibble of qs[16*ib + l%16]; its 6-bit scale is
//             ls = nibble ib%2 of scales_l[ib/2] | (bits 2ib..2ib+1 of scales_h) << 4
//           and x = d * (ls - 32) * kvalues[code].
//
// Exactness: d is binary16 (11 significant bits, exponent >= -24), |ls - 32| <= 32 and
// |kvalue| <= 127, so every product has at most 11 + 6 + 7 = 24 significant bits: exact
// in double (and, for the record, in float too).
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/iq_tables.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

double f16_at(const uint8_t* p) { return scalar::from_f16(le::u16(p)); }
int kvalue(int code) { return iq::kValuesIq4nl[code & 0xF]; }

// ---- iq4_nl: {f16 d; u8 qs[16]} = 18 bytes.
constexpr int kNlD = 0, kNlQs = 2, kNlBytes = 18, kNlElems = 32;
int nl_code(const uint8_t* qs, int i) { return i < 16 ? (qs[i] & 0xF) : (qs[i - 16] >> 4); }

DecodeError decode_iq4_nl(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kNlD);
  if (!std::isfinite(d)) return non_finite("iq4_nl", "d", le::u16(b + kNlD));
  for (int i = 0; i < kNlElems; ++i) {
    v[i] = d * kvalue(nl_code(b + kNlQs, i));
    mag[i] = std::fabs(v[i]);
  }
  return {};
}
// fields: d
void pack_iq4_nl(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kNlBytes);
  le::put16(b + kNlD, f.fields[0]);
  for (int i = 0; i < kNlElems; ++i)
    b[kNlQs + i % 16] |= static_cast<uint8_t>((f.codes[i] & 0xF) << (i < 16 ? 0 : 4));
}
void unpack_iq4_nl(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b + kNlD)};
  f.codes.resize(kNlElems);
  for (int i = 0; i < kNlElems; ++i) f.codes[i] = nl_code(b + kNlQs, i);
}

// ---- iq4_xs: {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]} = 136 bytes.
constexpr int kXsD = 0, kXsScalesH = 2, kXsScalesL = 4, kXsQs = 8, kXsBytes = 136, kXsElems = 256;
static_assert(kNlElems == block::iq4_nl::elems && kNlBytes == block::iq4_nl::bytes, "the layout matches the formats.inc row");
static_assert(kXsElems == block::iq4_xs::elems && kXsBytes == block::iq4_xs::bytes, "the layout matches the formats.inc row");
int xs_code(const uint8_t* qs, int e) {
  const int ib = e / 32, l = e % 32;
  return (qs[16 * ib + l % 16] >> (l < 16 ? 0 : 4)) & 0xF;
}
// The stored 6-bit scale ls of sub-block ib (its meaning is ls - 32).
int xs_ls(const uint8_t* b, int ib) {
  const int lo = (b[kXsScalesL + ib / 2] >> (4 * (ib % 2))) & 0xF;
  const int hi = (le::u16(b + kXsScalesH) >> (2 * ib)) & 3;
  return lo | (hi << 4);
}

DecodeError decode_iq4_xs(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kXsD);
  if (!std::isfinite(d)) return non_finite("iq4_xs", "d", le::u16(b + kXsD));
  for (int e = 0; e < kXsElems; ++e) {
    v[e] = d * (xs_ls(b, e / 32) - 32) * kvalue(xs_code(b + kXsQs, e));
    mag[e] = std::fabs(v[e]);
  }
  return {};
}
// fields: d, scales[8] (the stored 6-bit ls, FieldKind::s6: value ls - 32)
void pack_iq4_xs(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kXsBytes);
  le::put16(b + kXsD, f.fields[0]);
  uint32_t h = 0;
  for (int ib = 0; ib < 8; ++ib) {
    const uint32_t ls = f.fields[1 + ib] & 63;
    b[kXsScalesL + ib / 2] |= static_cast<uint8_t>((ls & 0xF) << (4 * (ib % 2)));
    h |= (ls >> 4) << (2 * ib);
  }
  le::put16(b + kXsScalesH, h);
  for (int e = 0; e < kXsElems; ++e) {
    const int ib = e / 32, l = e % 32;
    b[kXsQs + 16 * ib + l % 16] |= static_cast<uint8_t>((f.codes[e] & 0xF) << (l < 16 ? 0 : 4));
  }
}
void unpack_iq4_xs(const uint8_t* b, BlockFields& f) {
  f.fields.assign(9, 0);
  f.fields[0] = le::u16(b + kXsD);
  for (int ib = 0; ib < 8; ++ib) f.fields[1 + ib] = static_cast<uint32_t>(xs_ls(b, ib));
  f.codes.resize(kXsElems);
  for (int e = 0; e < kXsElems; ++e) f.codes[e] = xs_code(b + kXsQs, e);
}

constexpr FieldSpec kNlFields[] = {{"d", FieldKind::f16, 1}};
constexpr FieldSpec kXsFields[] = {{"d", FieldKind::f16, 1}, {"scales", FieldKind::s6, 8}};
}  // namespace

QGATE_DEFINE_FORMAT(iq4_nl, 16, -1, false, kNlFields, "ggml src/ggml-common.h block_iq4_nl, kvalues_iq4nl; src/ggml-quants.c dequantize_row_iq4_nl")
QGATE_DEFINE_FORMAT(iq4_xs, 16, -1, false, kXsFields, "ggml src/ggml-common.h block_iq4_xs, kvalues_iq4nl; src/ggml-quants.c dequantize_row_iq4_xs")

}  // namespace qgate::formats
