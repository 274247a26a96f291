// GGUF legacy 32-element blocks: q4_0, q4_1, q5_0, q5_1, q8_0.
// Layouts: ggml src/ggml-common.h (block_q4_0 ... block_q8_0); values: ggml
// src/ggml-quants.c dequantize_row_q*.
//
// Element i of a block (0..31): the 4-bit code is the low nibble of qs[i] for i < 16 and
// the high nibble of qs[i-16] for i >= 16; q5 adds bit i of the little-endian qh word.
#include <cmath>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

int nibble_code(const uint8_t* qs, int i) { return i < 16 ? (qs[i] & 0xF) : (qs[i - 16] >> 4); }

void put_nibbles(const std::vector<int32_t>& codes, uint8_t* qs) {
  for (int i = 0; i < 16; ++i) qs[i] = static_cast<uint8_t>((codes[i] & 0xF) | ((codes[i + 16] & 0xF) << 4));
}

// ---- q4_0: {f16 d; u8 qs[16]}, x = d*(q-8)
DecodeError decode_q4_0(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q4_0", "d", le::u16(b));
  for (int i = 0; i < 32; ++i) {
    const int q = nibble_code(b + 2, i);
    v[i] = d * (q - 8);
    mag[i] = std::fabs(d) * (q + 8);
  }
  return {};
}
void pack_q4_0(const BlockFields& f, uint8_t* b) { le::put16(b, f.fields[0]); put_nibbles(f.codes, b + 2); }
void unpack_q4_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = nibble_code(b + 2, i);
}

// ---- q4_1: {f16 d; f16 m; u8 qs[16]}, x = d*q + m
DecodeError decode_q4_1(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b)), m = scalar::from_f16(le::u16(b + 2));
  if (!std::isfinite(d)) return non_finite("q4_1", "d", le::u16(b));
  if (!std::isfinite(m)) return non_finite("q4_1", "m", le::u16(b + 2));
  for (int i = 0; i < 32; ++i) {
    const int q = nibble_code(b + 4, i);
    v[i] = d * q + m;
    mag[i] = std::fabs(d) * q + std::fabs(m);
  }
  return {};
}
void pack_q4_1(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  le::put16(b + 2, f.fields[1]);
  put_nibbles(f.codes, b + 4);
}
void unpack_q4_1(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b), le::u16(b + 2)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = nibble_code(b + 4, i);
}

// ---- q5_0: {f16 d; u8 qh[4]; u8 qs[16]}, x = d*(q-16); q = nibble | (bit i of qh) << 4
int q5_code(const uint8_t* qh, const uint8_t* qs, int i) {
  return nibble_code(qs, i) | (static_cast<int>((le::u32(qh) >> i) & 1u) << 4);
}
void put_q5(const std::vector<int32_t>& codes, uint8_t* qh, uint8_t* qs) {
  uint32_t h = 0;
  for (int i = 0; i < 32; ++i) h |= static_cast<uint32_t>((codes[i] >> 4) & 1) << i;
  le::put32(qh, h);
  put_nibbles(codes, qs);
}
DecodeError decode_q5_0(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q5_0", "d", le::u16(b));
  for (int i = 0; i < 32; ++i) {
    const int q = q5_code(b + 2, b + 6, i);
    v[i] = d * (q - 16);
    mag[i] = std::fabs(d) * (q + 16);
  }
  return {};
}
void pack_q5_0(const BlockFields& f, uint8_t* b) { le::put16(b, f.fields[0]); put_q5(f.codes, b + 2, b + 6); }
void unpack_q5_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = q5_code(b + 2, b + 6, i);
}

// ---- q5_1: {f16 d; f16 m; u8 qh[4]; u8 qs[16]}, x = d*q + m
DecodeError decode_q5_1(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b)), m = scalar::from_f16(le::u16(b + 2));
  if (!std::isfinite(d)) return non_finite("q5_1", "d", le::u16(b));
  if (!std::isfinite(m)) return non_finite("q5_1", "m", le::u16(b + 2));
  for (int i = 0; i < 32; ++i) {
    const int q = q5_code(b + 4, b + 8, i);
    v[i] = d * q + m;
    mag[i] = std::fabs(d) * q + std::fabs(m);
  }
  return {};
}
void pack_q5_1(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  le::put16(b + 2, f.fields[1]);
  put_q5(f.codes, b + 4, b + 8);
}
void unpack_q5_1(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b), le::u16(b + 2)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = q5_code(b + 4, b + 8, i);
}

// ---- q8_0: {f16 d; i8 qs[32]}, x = d*qs[i]; code = qs + 128 so codes span all 256 bytes
DecodeError decode_q8_0(const uint8_t* b, double* v, double* mag) {
  const double d = scalar::from_f16(le::u16(b));
  if (!std::isfinite(d)) return non_finite("q8_0", "d", le::u16(b));
  for (int i = 0; i < 32; ++i) {
    v[i] = d * static_cast<int8_t>(b[2 + i]);
    mag[i] = std::fabs(v[i]);
  }
  return {};
}
void pack_q8_0(const BlockFields& f, uint8_t* b) {
  le::put16(b, f.fields[0]);
  for (int i = 0; i < 32; ++i) b[2 + i] = static_cast<uint8_t>(f.codes[i] - 128);
}
void unpack_q8_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b)};
  f.codes.resize(32);
  for (int i = 0; i < 32; ++i) f.codes[i] = static_cast<int8_t>(b[2 + i]) + 128;
}

constexpr FieldSpec kD[] = {{"d", FieldKind::f16, 1}};
constexpr FieldSpec kDM[] = {{"d", FieldKind::f16, 1}, {"m", FieldKind::f16, 1}};
constexpr std::string_view kSrc = "ggml src/ggml-common.h block_q*, src/ggml-quants.c dequantize_row_q*";
}  // namespace

QGATE_DEFINE_FORMAT(q4_0, 16, 8, false, kD, kSrc)
QGATE_DEFINE_FORMAT(q4_1, 16, 0, false, kDM, kSrc)
QGATE_DEFINE_FORMAT(q5_0, 32, 16, false, kD, kSrc)
QGATE_DEFINE_FORMAT(q5_1, 32, 0, false, kDM, kSrc)
QGATE_DEFINE_FORMAT(q8_0, 256, 128, false, kD, kSrc)

}  // namespace qgate::formats
