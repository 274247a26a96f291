// FP8 weights with a binary32 scale per 32-element block: fp8_e4m3 (OCP E4M3 "fn") and
// fp8_e5m2 (OCP E5M2). Neither is a GGUF type. Element encodings: OCP 8-bit
// floating point (OFP8) E4M3 and E5M2; decoders in scalar.hpp.
//
// The block layout is qgate's choice, not an external standard:
//   {u32 scale (binary32 bits, little-endian); u8 q[32]}  = 36 bytes, 9 bits/weight
//   x_i = scale * fp8(q[i])
// Why this layout: fp8 checkpoints carry their scales apart from the fp8 bytes, per tensor
// or per output channel (sometimes per 2-D tile), as binary32 values that are not powers of
// two. A binary32 scale per 32-element block holds any of those exactly: a per-tensor scale
// is every block with the same scale, a per-channel scale is every block of a row with the
// same scale. 32 is the MX block size (and ggml's legacy block size), so fp8 shares tiling
// and shape rules with the other 32-element formats, and an MXFP8-style E8M0 block scale is
// the special case of a power-of-two scale.
//
// Codes are the raw bytes (0..255). Bytes that decode to NaN (E4M3: 0x7F, 0xFF) or to
// Inf/NaN (E5M2: exponent field all ones, 0x7C..0x7F and 0xFC..0xFF) make the block
// invalid: decode returns an error naming the element, and code_valid keeps generators
// from drawing them. The product scale*fp8 has at most 24+4 significant bits and an
// exponent within fp64's normal range, so every value is exact in fp64.
#include <cmath>
#include <cstdio>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate::formats {
namespace {

constexpr int kElems = 32;
constexpr int kBytes = 4 + kElems;
static_assert(kElems == block::fp8_e4m3::elems && kBytes == block::fp8_e4m3::bytes, "the layout matches the formats.inc row");
static_assert(kElems == block::fp8_e5m2::elems && kBytes == block::fp8_e5m2::bytes, "the layout matches the formats.inc row");

using Fp8Decoder = double (*)(uint8_t);

DecodeError decode_fp8(const char* name, Fp8Decoder fp8, const uint8_t* b, double* v, double* mag) {
  const uint32_t sbits = le::u32(b);
  const double scale = scalar::from_f32(sbits);
  if (!std::isfinite(scale)) return non_finite(name, "scale", sbits);
  for (int i = 0; i < kElems; ++i) {
    const uint8_t q = b[4 + i];
    const double x = fp8(q);
    if (!std::isfinite(x)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s: element %d byte 0x%02X decodes to %s", name, i, q,
                    std::isnan(x) ? "NaN" : "Inf");
      return {buf};
    }
    v[i] = scale * x;
    mag[i] = std::fabs(v[i]);
  }
  return {};
}

void pack_fp8(const BlockFields& f, uint8_t* b) {
  le::put32(b, f.fields[0]);
  for (int i = 0; i < kElems; ++i) b[4 + i] = static_cast<uint8_t>(f.codes[i] & 0xFF);
}

void unpack_fp8(const uint8_t* b, BlockFields& f) {
  f.fields = {le::u32(b)};
  f.codes.resize(kElems);
  for (int i = 0; i < kElems; ++i) f.codes[i] = b[4 + i];
}

bool in_byte_range(int32_t code) { return code >= 0 && code <= 0xFF; }

DecodeError decode_e4m3(const uint8_t* b, double* v, double* mag) {
  return decode_fp8("fp8_e4m3", scalar::from_e4m3fn, b, v, mag);
}
bool valid_e4m3(int32_t code) {
  return in_byte_range(code) && std::isfinite(scalar::from_e4m3fn(static_cast<uint8_t>(code)));
}

DecodeError decode_e5m2(const uint8_t* b, double* v, double* mag) {
  return decode_fp8("fp8_e5m2", scalar::from_e5m2, b, v, mag);
}
bool valid_e5m2(int32_t code) {
  return in_byte_range(code) && std::isfinite(scalar::from_e5m2(static_cast<uint8_t>(code)));
}

constexpr FieldSpec kScale[] = {{"scale", FieldKind::f32, 1}};
constexpr std::string_view kSrcE4m3 =
    "qgate layout (oracles/formats/fp8.cpp): f32 scale per 32 elements; element = OCP FP8 E4M3 "
    "\"fn\" (ml_dtypes float8_e4m3fn)";
constexpr std::string_view kSrcE5m2 =
    "qgate layout (oracles/formats/fp8.cpp): f32 scale per 32 elements; element = OCP FP8 E5M2 "
    "(ml_dtypes float8_e5m2)";
}  // namespace

const FormatInfo& format_fp8_e4m3() {
  static const FormatInfo f{QGATE_FORMAT_HEAD(fp8_e4m3), 256, 0, false,
                            kScale, kSrcE4m3, decode_e4m3, pack_fp8, unpack_fp8,
                            nullptr, valid_e4m3};
  return f;
}

const FormatInfo& format_fp8_e5m2() {
  static const FormatInfo f{QGATE_FORMAT_HEAD(fp8_e5m2), 256, 0, false,
                            kScale, kSrcE5m2, decode_e5m2, pack_fp8, unpack_fp8,
                            nullptr, valid_e5m2};
  return f;
}

}  // namespace qgate::formats
