// GGUF K-quants, 256-element super-blocks: q2_K, q3_K, q4_K, q5_K, q6_K.
// Layouts: ggml src/ggml-common.h (block_q2_K ... block_q6_K); values: ggml
// src/ggml-quants.c dequantize_row_q*_K and get_scale_min_k4.
//
// Each element e (0..255) is decoded on its own from the index formulas, not by replaying
// ggml's chunked loops (the golden tests compare the two readings bit for bit):
//   16-element sub-blocks (q2_K, q3_K, q6_K): sub-block j = e/16 owns scale j.
//   32-element sub-blocks (q4_K, q5_K): sub-block j = e/32 owns scale/min pair j.
//
// Exactness: d and dmin are binary16, so every product d*sc*q and dmin*m is an integer
// multiple of 2^-24 below 2^28 in magnitude (largest: 65504*128*32 for q6_K), and so is
// their difference (< 2^29). Every such number has at most 53 significant bits: all the
// arithmetic below is exact in double.
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kQK = 256;

double f16_at(const uint8_t* p) { return scalar::from_f16(le::u16(p)); }

// The 2-bit plane shared by q2_K codes and q3_K low bits: element e = 128h + 32g + l
// (h < 2, g < 4, l < 32) sits at bits 2g..2g+1 of qs[32h + l].
int crumb_code(const uint8_t* qs, int e) { return (qs[32 * (e / 128) + e % 32] >> (2 * (e / 32 % 4))) & 3; }
void put_crumb(uint8_t* qs, int e, int code) {
  qs[32 * (e / 128) + e % 32] |= static_cast<uint8_t>((code & 3) << (2 * (e / 32 % 4)));
}

// The one-bit plane of q3_K (hmask) and q5_K (qh): bit e/32 of byte e%32.
int plane_bit(const uint8_t* h, int e) { return (h[e % 32] >> (e / 32)) & 1; }
void put_plane_bit(uint8_t* h, int e, int bit) { h[e % 32] |= static_cast<uint8_t>((bit & 1) << (e / 32)); }

// The nibble plane of q4_K and q5_K: element e = 64c + 32s + l (c < 4, s < 2, l < 32) is
// the low (s = 0) or high (s = 1) nibble of qs[32c + l].
int k4_nibble(const uint8_t* qs, int e) { return (qs[32 * (e / 64) + e % 32] >> (4 * (e / 32 % 2))) & 0xF; }
void put_k4_nibble(uint8_t* qs, int e, int code) {
  qs[32 * (e / 64) + e % 32] |= static_cast<uint8_t>((code & 0xF) << (4 * (e / 32 % 2)));
}

// The 12-byte packing of eight 6-bit scales sc_j and mins m_j (get_scale_min_k4):
//   j < 4:  sc_j = bits 0-5 of byte j;   m_j = bits 0-5 of byte j+4
//   j >= 4: sc_j = low nibble of byte j+4  | (bits 6-7 of byte j-4) << 4
//           m_j  = high nibble of byte j+4 | (bits 6-7 of byte j)   << 4
int k4_scale(const uint8_t* s, int j) { return j < 4 ? (s[j] & 63) : ((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4)); }
int k4_min(const uint8_t* s, int j) { return j < 4 ? (s[j + 4] & 63) : ((s[j + 4] >> 4) | ((s[j] >> 6) << 4)); }
void put_k4_scales(const uint32_t* sc, const uint32_t* m, uint8_t* s) {
  std::memset(s, 0, 12);
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<uint8_t>((sc[j] & 63) | (((sc[j + 4] >> 4) & 3) << 6));
    s[j + 4] = static_cast<uint8_t>((m[j] & 63) | (((m[j + 4] >> 4) & 3) << 6));
    s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xF) | ((m[j + 4] & 0xF) << 4));
  }
}

// The 12-byte packing of sixteen 6-bit q3_K scales (stored 0..63, meaning value - 32):
// low nibble of byte j (j < 8) or high nibble of byte j-8 (j >= 8), top two bits at
// bits 2*(j/4)..2*(j/4)+1 of byte 8 + j%4.
int q3_scale6(const uint8_t* s, int j) {
  const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
  const int hi = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
  return lo | (hi << 4);
}
void put_q3_scales(const uint32_t* s6, uint8_t* s) {
  std::memset(s, 0, 12);
  for (int j = 0; j < 16; ++j) {
    s[j % 8] |= static_cast<uint8_t>((s6[j] & 0xF) << (j < 8 ? 0 : 4));
    s[8 + j % 4] |= static_cast<uint8_t>(((s6[j] >> 4) & 3) << (2 * (j / 4)));
  }
}

// Element value a - c with mag |a| + |c|.
void put_split(double a, double c, double& v, double& mag) {
  v = a - c;
  mag = std::fabs(a) + std::fabs(c);
}
// Element value ds * (q - off), as the format's formula computes it (the sign of a zero
// follows ds), in split form: mag |ds q| + |ds off| (dot products subtract ds off sum x apart).
void put_offset(double ds, int q, int off, double& v, double& mag) {
  v = ds * (q - off);
  mag = std::fabs(ds) * (q + off);
}

// ---- q2_K: {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin} = 84 bytes.
// scales[j] = sc_j | m_j << 4 for elements 16j..16j+15; x = d*sc*q - dmin*m, q in 0..3.
constexpr int kQ2Scales = 0, kQ2Qs = 16, kQ2D = 80, kQ2Dmin = 82;
DecodeError decode_q2_K(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kQ2D), dmin = f16_at(b + kQ2Dmin);
  if (!std::isfinite(d)) return non_finite("q2_K", "d", le::u16(b + kQ2D));
  if (!std::isfinite(dmin)) return non_finite("q2_K", "dmin", le::u16(b + kQ2Dmin));
  for (int e = 0; e < kQK; ++e) {
    const int sc = b[kQ2Scales + e / 16] & 0xF, m = b[kQ2Scales + e / 16] >> 4;
    put_split(d * sc * crumb_code(b + kQ2Qs, e), dmin * m, v[e], mag[e]);
  }
  return {};
}
// fields: d, dmin, sc[16], m[16]
void pack_q2_K(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, 84);
  for (int j = 0; j < 16; ++j) b[kQ2Scales + j] = static_cast<uint8_t>((f.fields[2 + j] & 0xF) | ((f.fields[18 + j] & 0xF) << 4));
  for (int e = 0; e < kQK; ++e) put_crumb(b + kQ2Qs, e, f.codes[e]);
  le::put16(b + kQ2D, f.fields[0]);
  le::put16(b + kQ2Dmin, f.fields[1]);
}
void unpack_q2_K(const uint8_t* b, BlockFields& f) {
  f.fields.assign(34, 0);
  f.fields[0] = le::u16(b + kQ2D);
  f.fields[1] = le::u16(b + kQ2Dmin);
  for (int j = 0; j < 16; ++j) {
    f.fields[2 + j] = b[kQ2Scales + j] & 0xF;
    f.fields[18 + j] = b[kQ2Scales + j] >> 4;
  }
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = crumb_code(b + kQ2Qs, e);
}

// ---- q3_K: {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d} = 110 bytes.
// code = low2 | hbit << 2 (0..7); x = d*(s6_j - 32)*(code - 4) with j = e/16. hbit = 0
// means "subtract 4", so code - 4 = low2 - 4*!hbit.
constexpr int kQ3Hmask = 0, kQ3Qs = 32, kQ3Scales = 96, kQ3D = 108;
int q3_code(const uint8_t* b, int e) { return crumb_code(b + kQ3Qs, e) | (plane_bit(b + kQ3Hmask, e) << 2); }
DecodeError decode_q3_K(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kQ3D);
  if (!std::isfinite(d)) return non_finite("q3_K", "d", le::u16(b + kQ3D));
  for (int e = 0; e < kQK; ++e) {
    const int s = q3_scale6(b + kQ3Scales, e / 16) - 32;
    put_offset(d * s, q3_code(b, e), 4, v[e], mag[e]);
  }
  return {};
}
// fields: d, scales[16] (stored 6-bit values)
void pack_q3_K(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, 110);
  for (int e = 0; e < kQK; ++e) {
    put_crumb(b + kQ3Qs, e, f.codes[e] & 3);
    put_plane_bit(b + kQ3Hmask, e, (f.codes[e] >> 2) & 1);
  }
  put_q3_scales(f.fields.data() + 1, b + kQ3Scales);
  le::put16(b + kQ3D, f.fields[0]);
}
void unpack_q3_K(const uint8_t* b, BlockFields& f) {
  f.fields.assign(17, 0);
  f.fields[0] = le::u16(b + kQ3D);
  for (int j = 0; j < 16; ++j) f.fields[1 + j] = q3_scale6(b + kQ3Scales, j);
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = q3_code(b, e);
}

// ---- q4_K: {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]} = 144 bytes.
// x = d*sc_j*q - dmin*m_j with j = e/32, q in 0..15.
constexpr int kK4D = 0, kK4Dmin = 2, kK4Scales = 4;
constexpr int kQ4Qs = 16;
DecodeError decode_q4_K(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kK4D), dmin = f16_at(b + kK4Dmin);
  if (!std::isfinite(d)) return non_finite("q4_K", "d", le::u16(b + kK4D));
  if (!std::isfinite(dmin)) return non_finite("q4_K", "dmin", le::u16(b + kK4Dmin));
  for (int e = 0; e < kQK; ++e) {
    const int j = e / 32;
    put_split(d * k4_scale(b + kK4Scales, j) * k4_nibble(b + kQ4Qs, e), dmin * k4_min(b + kK4Scales, j),
              v[e], mag[e]);
  }
  return {};
}
// fields (q4_K and q5_K): d, dmin, sc[8], m[8]
void pack_k4_head(const BlockFields& f, uint8_t* b) {
  le::put16(b + kK4D, f.fields[0]);
  le::put16(b + kK4Dmin, f.fields[1]);
  put_k4_scales(f.fields.data() + 2, f.fields.data() + 10, b + kK4Scales);
}
void unpack_k4_head(const uint8_t* b, BlockFields& f) {
  f.fields.assign(18, 0);
  f.fields[0] = le::u16(b + kK4D);
  f.fields[1] = le::u16(b + kK4Dmin);
  for (int j = 0; j < 8; ++j) {
    f.fields[2 + j] = k4_scale(b + kK4Scales, j);
    f.fields[10 + j] = k4_min(b + kK4Scales, j);
  }
}
void pack_q4_K(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, 144);
  pack_k4_head(f, b);
  for (int e = 0; e < kQK; ++e) put_k4_nibble(b + kQ4Qs, e, f.codes[e]);
}
void unpack_q4_K(const uint8_t* b, BlockFields& f) {
  unpack_k4_head(b, f);
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = k4_nibble(b + kQ4Qs, e);
}

// ---- q5_K: {f16 d; f16 dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]} = 176 bytes.
// q = nibble (as q4_K) | (bit e/32 of qh[e%32]) << 4; x = d*sc_j*q - dmin*m_j, j = e/32.
constexpr int kQ5Qh = 16, kQ5Qs = 48;
int q5_code(const uint8_t* b, int e) { return k4_nibble(b + kQ5Qs, e) | (plane_bit(b + kQ5Qh, e) << 4); }
DecodeError decode_q5_K(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kK4D), dmin = f16_at(b + kK4Dmin);
  if (!std::isfinite(d)) return non_finite("q5_K", "d", le::u16(b + kK4D));
  if (!std::isfinite(dmin)) return non_finite("q5_K", "dmin", le::u16(b + kK4Dmin));
  for (int e = 0; e < kQK; ++e) {
    const int j = e / 32;
    put_split(d * k4_scale(b + kK4Scales, j) * q5_code(b, e), dmin * k4_min(b + kK4Scales, j), v[e], mag[e]);
  }
  return {};
}
void pack_q5_K(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, 176);
  pack_k4_head(f, b);
  for (int e = 0; e < kQK; ++e) {
    put_k4_nibble(b + kQ5Qs, e, f.codes[e]);
    put_plane_bit(b + kQ5Qh, e, (f.codes[e] >> 4) & 1);
  }
}
void unpack_q5_K(const uint8_t* b, BlockFields& f) {
  unpack_k4_head(b, f);
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = q5_code(b, e);
}

// ---- q6_K: {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d} = 210 bytes.
// Element e = 128h + 32k + l (h < 2, k < 4, l < 32): low 4 bits = the low (k < 2) or high
// (k >= 2) nibble of ql[64h + 32*(k%2) + l]; top 2 bits = bits 2k..2k+1 of qh[32h + l].
// x = d*scales[e/16]*(q - 32), q in 0..63.
constexpr int kQ6Ql = 0, kQ6Qh = 128, kQ6Scales = 192, kQ6D = 208;
int q6_ql_index(int e) { return 64 * (e / 128) + 32 * (e / 32 % 2) + e % 32; }
int q6_ql_shift(int e) { return 4 * (e / 64 % 2); }
int q6_qh_index(int e) { return 32 * (e / 128) + e % 32; }
int q6_qh_shift(int e) { return 2 * (e / 32 % 4); }
int q6_code(const uint8_t* b, int e) {
  const int lo = (b[kQ6Ql + q6_ql_index(e)] >> q6_ql_shift(e)) & 0xF;
  const int hi = (b[kQ6Qh + q6_qh_index(e)] >> q6_qh_shift(e)) & 3;
  return lo | (hi << 4);
}
DecodeError decode_q6_K(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kQ6D);
  if (!std::isfinite(d)) return non_finite("q6_K", "d", le::u16(b + kQ6D));
  for (int e = 0; e < kQK; ++e) {
    const int s = static_cast<int8_t>(b[kQ6Scales + e / 16]);
    put_offset(d * s, q6_code(b, e), 32, v[e], mag[e]);
  }
  return {};
}
// fields: d, scales[16] (raw int8 bytes)
void pack_q6_K(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, 210);
  for (int e = 0; e < kQK; ++e) {
    b[kQ6Ql + q6_ql_index(e)] |= static_cast<uint8_t>((f.codes[e] & 0xF) << q6_ql_shift(e));
    b[kQ6Qh + q6_qh_index(e)] |= static_cast<uint8_t>(((f.codes[e] >> 4) & 3) << q6_qh_shift(e));
  }
  for (int j = 0; j < 16; ++j) b[kQ6Scales + j] = static_cast<uint8_t>(f.fields[1 + j] & 0xFF);
  le::put16(b + kQ6D, f.fields[0]);
}
void unpack_q6_K(const uint8_t* b, BlockFields& f) {
  f.fields.assign(17, 0);
  f.fields[0] = le::u16(b + kQ6D);
  for (int j = 0; j < 16; ++j) f.fields[1 + j] = b[kQ6Scales + j];
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = q6_code(b, e);
}

constexpr FieldSpec kQ2Fields[] = {{"d", FieldKind::f16, 1},
                                   {"dmin", FieldKind::f16, 1},
                                   {"sc", FieldKind::u4, 16},
                                   {"m", FieldKind::u4, 16}};
constexpr FieldSpec kQ3Fields[] = {{"d", FieldKind::f16, 1}, {"scales", FieldKind::s6, 16}};
constexpr FieldSpec kK4Fields[] = {{"d", FieldKind::f16, 1},
                                   {"dmin", FieldKind::f16, 1},
                                   {"sc", FieldKind::u6, 8},
                                   {"m", FieldKind::u6, 8}};
constexpr FieldSpec kQ6Fields[] = {{"d", FieldKind::f16, 1}, {"scales", FieldKind::s8, 16}};
}  // namespace

QGATE_DEFINE_FORMAT(q2_K, 4, 0, false, kQ2Fields, "ggml src/ggml-common.h block_q2_K; src/ggml-quants.c dequantize_row_q2_K")
QGATE_DEFINE_FORMAT(q3_K, 8, 4, false, kQ3Fields, "ggml src/ggml-common.h block_q3_K; src/ggml-quants.c dequantize_row_q3_K")
QGATE_DEFINE_FORMAT(q4_K, 16, 0, false, kK4Fields, "ggml src/ggml-common.h block_q4_K; src/ggml-quants.c dequantize_row_q4_K, get_scale_min_k4")
QGATE_DEFINE_FORMAT(q5_K, 32, 0, false, kK4Fields, "ggml src/ggml-common.h block_q5_K; src/ggml-quants.c dequantize_row_q5_K, get_scale_min_k4")
QGATE_DEFINE_FORMAT(q6_K, 64, 32, false, kQ6Fields, "ggml src/ggml-common.h block_q6_K; src/ggml-quants.c dequantize_row_q6_K")

}  // namespace qgate::formats
