// Ternary formats (BitNet b1.58 / TriLM): tq1_0 (base-3 packed, 1.6875 bpw) and tq2_0
// (2 bits per element). Layouts: ggml src/ggml-common.h (block_tq1_0, block_tq2_0); values:
// src/ggml-quants.c dequantize_row_tq1_0 / dequantize_row_tq2_0, packing from
// quantize_row_tq1_0_ref.
//
// Codes are per element: x = d * (code - 1).
//
// tq2_0 {u8 qs[64]; f16 d} = 66 bytes. Element e = 128h + 32l + m (h < 2, l < 4, m < 32) is
// bits 2l..2l+1 of qs[32h + m]. Codes 0/1/2 mean -1/0/+1; code 3 never comes out of ggml's
// quantizer but is a bit pattern like any other and decodes, as ggml does, to 2*d. It is
// excluded from generation (code_valid), not from decoding.
//
// tq1_0 {u8 qs[48]; u8 qh[4]; f16 d} = 54 bytes. Each byte holds base-3 digits ("trits")
// as a fixed-point fraction: trit n of byte b is digit n+1 after the point of b/256 in
// base 3, i.e. floor(b * 3^(n+1) / 256) mod 3 (ggml: t = (uint8)(b * 3^n), trit =
// (t * 3) >> 8, the same number). So the digits of b, read most significant first, form
//   q = floor(b * 243 / 256)   (qs bytes: 5 trits, q = sum trit_n * 3^(4-n))
//   q = floor(b * 81 / 256)    (qh bytes: 4 trits, q = sum trit_n * 3^(3-n))
// Element order:
//   e < 160:        trit e/32 of qs[e % 32]
//   160 <= e < 240: trit (e-160)/16 of qs[32 + (e-160) % 16]
//   240 <= e < 256: trit (e-240)/4 of qh[(e-240) % 4]   (trit 4 of a qh byte is unused)
// The quantizer stores the smallest byte with those digits, ceil(q * 256 / 243) (qs) or
// ceil(3q * 256 / 243) = ceil(q * 256 / 81) (qh). Every byte decodes (b -> q is onto and
// monotone), but 256 bytes over 243 (qs) or 81 (qh) digit strings means some strings have
// more than one byte: 13 qs strings have 2 bytes, every qh string has 3 or 4. To keep
// pack(unpack(b)) == b for every byte, each byte's offset from the canonical byte of its
// digits is a field:
//   qs_residual[48] (1 bit): b - ceil(q * 256 / 243), 0 or 1
//   qh_residual[4]  (2 bits): b - ceil(q * 256 / 81), 0..3
// pack_block clamps a residual to the bytes that exist for the digits being packed (most qs
// strings have one byte, so residual 1 packs as 0 there): the packed block always decodes
// to the codes asked for, and unpack returns the residual actually stored.
//
// Exactness: d * (code - 1) with code - 1 in {-1, 0, 1, 2} is exact in double.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kQK = 256;
double f16_at(const uint8_t* p) { return scalar::from_f16(le::u16(p)); }
// value d*(code - 1) in split form: a = d*code, c = d (ggml's dot products subtract the
// offset as d * sum x, so their rounding scales with |d*code| + |d|, even where the value is 0).
void put_value(double d, int code, double& v, double& mag) {
  v = d * (code - 1);
  mag = std::fabs(d) * (code + 1);
}

// ---- tq1_0
constexpr int kT1Qs = 0, kT1Qh = 48, kT1D = 52, kT1Bytes = 54;
constexpr int kPow3[6] = {1, 3, 9, 27, 81, 243};

// Where element e lives: byte offset within the block, trit position n, trits in the byte.
struct TritSlot {
  int byte, n, trits;
};
TritSlot t1_slot(int e) {
  if (e < 160) return {kT1Qs + e % 32, e / 32, 5};
  if (e < 240) return {kT1Qs + 32 + (e - 160) % 16, (e - 160) / 16, 5};
  return {kT1Qh + (e - 240) % 4, (e - 240) / 4, 4};
}
// Digit string of a byte holding `trits` trits, and the smallest byte carrying it.
int byte_digits(int b, int trits) { return b * kPow3[trits] / 256; }
int canonical_byte(int q, int trits) { return (q * 256 + kPow3[trits] - 1) / kPow3[trits]; }
int bytes_with_digits(int q, int trits) {
  return (q + 1 == kPow3[trits] ? 256 : canonical_byte(q + 1, trits)) - canonical_byte(q, trits);
}
int t1_code(const uint8_t* b, int e) {
  const TritSlot s = t1_slot(e);
  return byte_digits(b[s.byte], s.trits) / kPow3[s.trits - 1 - s.n] % 3;
}

DecodeError decode_tq1_0(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kT1D);
  if (!std::isfinite(d)) return non_finite("tq1_0", "d", le::u16(b + kT1D));
  for (int e = 0; e < kQK; ++e) put_value(d, t1_code(b, e), v[e], mag[e]);
  return {};
}
// fields: d, qs_residual[48], qh_residual[4]. Codes must be 0..2.
void pack_tq1_0(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kT1Bytes);
  int q[52] = {};  // digit string per byte (qs then qh)
  for (int e = 0; e < kQK; ++e) {
    const TritSlot s = t1_slot(e);
    q[s.byte - kT1Qs] += f.codes[e] * kPow3[s.trits - 1 - s.n];
  }
  for (int i = 0; i < 52; ++i) {
    const int trits = i < 48 ? 5 : 4;
    const int r = std::min(static_cast<int>(f.fields[1 + i]), bytes_with_digits(q[i], trits) - 1);
    b[kT1Qs + i] = static_cast<uint8_t>(canonical_byte(q[i], trits) + r);
  }
  le::put16(b + kT1D, f.fields[0]);
}
void unpack_tq1_0(const uint8_t* b, BlockFields& f) {
  f.fields.assign(53, 0);
  f.fields[0] = le::u16(b + kT1D);
  for (int i = 0; i < 52; ++i) {
    const int trits = i < 48 ? 5 : 4;
    f.fields[1 + i] = static_cast<uint32_t>(b[kT1Qs + i] - canonical_byte(byte_digits(b[kT1Qs + i], trits), trits));
  }
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = t1_code(b, e);
}

// ---- tq2_0
constexpr int kT2Qs = 0, kT2D = 64, kT2Bytes = 66;
static_assert(kQK == block::tq1_0::elems && kT1Bytes == block::tq1_0::bytes, "the layout matches the formats.inc row");
static_assert(kQK == block::tq2_0::elems && kT2Bytes == block::tq2_0::bytes, "the layout matches the formats.inc row");
int t2_index(int e) { return kT2Qs + 32 * (e / 128) + e % 32; }
int t2_shift(int e) { return 2 * (e / 32 % 4); }
int t2_code(const uint8_t* b, int e) { return (b[t2_index(e)] >> t2_shift(e)) & 3; }

DecodeError decode_tq2_0(const uint8_t* b, double* v, double* mag) {
  const double d = f16_at(b + kT2D);
  if (!std::isfinite(d)) return non_finite("tq2_0", "d", le::u16(b + kT2D));
  for (int e = 0; e < kQK; ++e) put_value(d, t2_code(b, e), v[e], mag[e]);
  return {};
}
// fields: d
void pack_tq2_0(const BlockFields& f, uint8_t* b) {
  std::memset(b, 0, kT2Bytes);
  for (int e = 0; e < kQK; ++e) b[t2_index(e)] |= static_cast<uint8_t>((f.codes[e] & 3) << t2_shift(e));
  le::put16(b + kT2D, f.fields[0]);
}
void unpack_tq2_0(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u16(b + kT2D)};
  f.codes.resize(kQK);
  for (int e = 0; e < kQK; ++e) f.codes[e] = t2_code(b, e);
}
bool tq2_0_code_valid(int32_t code) { return code >= 0 && code <= 2; }

constexpr FieldSpec kT1Fields[] = {{"d", FieldKind::f16, 1},
                                   {"qs_residual", FieldKind::ubits, 48, false, 1},
                                   {"qh_residual", FieldKind::ubits, 4, false, 2}};
constexpr FieldSpec kT2Fields[] = {{"d", FieldKind::f16, 1}};
}  // namespace

QGATE_DEFINE_FORMAT(tq1_0, 3, 1, false, kT1Fields, "ggml src/ggml-common.h block_tq1_0; src/ggml-quants.c dequantize_row_tq1_0, quantize_row_tq1_0_ref")
QGATE_DEFINE_FORMAT(tq2_0, 4, 1, false, kT2Fields, "ggml src/ggml-common.h block_tq2_0; src/ggml-quants.c dequantize_row_tq2_0", nullptr, tq2_0_code_valid)

}  // namespace qgate::formats
