// GPTQ / AutoRound int4, auto_gptq "v1" packing, as a tensor-level format (gptq_int4).
// Container layout: gptq.hpp.
//
// Facts checked against the sources (stored snapshots, commit in brackets):
//  - AutoGPTQ/AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py [179776bd]:
//    __init__: qweight is int32 [infeatures/32*bits, outfeatures], qzeros int32
//    [ceil(infeatures/group_size), outfeatures/32*bits], scales fp16 [G, outfeatures],
//    default g_idx[i] = i // group_size, group_size -1 means infeatures.
//    pack(): qweight[row] |= intweight[j] << (bits*(j-i)) for j = i..i+32/bits-1, so input
//    8r+j sits in bits 4j..4j+3 of row r (packed along K, LSB first); then `zeros -= 1`
//    and qzeros[:, col] |= zeros[:, j] << (bits*(j-i)) (packed along N, LSB first).
//    forward() torch path: zeros = (qzeros >> wf) & 0xF; zeros = zeros + 1;
//    weight = scales * (weight - zeros), i.e. w = s * (q - (stored + 1)).
//  - AutoGPTQ/AutoGPTQ auto_gptq/quantization/quantizer.py [3ef391f3]: find_params with
//    sym=True sets zero = (maxq + 1) / 2 = 8 for 4 bits; sym=False zero = round(-xmin/scale),
//    which is 0 when a group has no negative weight. So a symmetric v1 file stores 7 in
//    every nibble: qzeros 0x77777777.
//  - intel/auto-round auto_round/export/export_to_autogptq/qlinear_triton.py [0720019f]:
//    the same buffers, intweight << arange(32/bits)*bits summed along K, and `zeros -= 1`
//    before packing qzeros (also for a scalar zero, which fills qzeros with one constant).
//  - ModelCloud/GPTQModel gptqmodel/utils/model.py [011c00a6]: v1->v2 adds 0x11111111 to
//    each 4-bit qzeros word; comment: sym=False v1 files written by v2->v1 can overflow.
//
// Validation (never reads past the buffer): the exact size is checked before any array is
// touched. A checkpoint that claims symmetric must store 7 in every zero nibble: kernels
// that fold a constant zero 8 in are silently wrong otherwise (lessons-from-the-field.md).
#include "oracles/formats/gptq.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/format_impl.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate {
namespace {

constexpr uint64_t kSat = std::numeric_limits<uint64_t>::max();
uint64_t mul_sat(uint64_t a, uint64_t b) { return (a != 0 && b > kSat / a) ? kSat : a * b; }
uint64_t add_sat(uint64_t a, uint64_t b) { return a > kSat - b ? kSat : a + b; }

struct RawLayout {
  uint64_t groups = 0, qweight = 0, qzeros = 0, scales = 0, g_idx = 0, total = 0;  // kSat on overflow
};

// k, n multiples of 8 and group_size >= 1 are checked by the callers.
RawLayout raw_layout(uint64_t k, uint64_t n, uint64_t group_size, bool has_g_idx) {
  RawLayout l;
  l.groups = k == 0 ? 0 : (k - 1) / group_size + 1;
  l.qweight = gptq::kHeaderBytes;
  l.qzeros = add_sat(l.qweight, mul_sat(mul_sat(k / 8, n), 4));
  l.scales = add_sat(l.qzeros, mul_sat(mul_sat(l.groups, n / 8), 4));
  l.g_idx = add_sat(l.scales, mul_sat(mul_sat(l.groups, n), 2));
  l.total = add_sat(l.g_idx, has_g_idx ? mul_sat(k, 4) : 0);
  return l;
}

// printf-style error text with the format name in front; the attribute lets the
// compiler check every message's arguments.
__attribute__((format(printf, 1, 2))) std::string fmt(const char* f, ...) {
  char buf[320];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return std::string("gptq_int4: ") + buf;
}

DecodeError decode_gptq(const QTensor& t, std::vector<double>& value, std::vector<double>& mag) {
  const std::vector<uint8_t>& b = t.bytes;
  if (b.size() < gptq::kHeaderBytes)
    return {fmt("truncated container: %zu bytes, the header alone needs %zu", b.size(), gptq::kHeaderBytes)};
  if (std::memcmp(b.data(), gptq::kMagic, sizeof gptq::kMagic) != 0)
    return {fmt("wrong magic: expected \"QGGPTQ1\\0\", got %02X %02X %02X %02X %02X %02X %02X %02X", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7])};
  const uint32_t k = le::u32(&b[8]), n = le::u32(&b[12]), group_size = le::u32(&b[16]);
  const uint32_t flags = le::u32(&b[20]);
  if (flags & ~(gptq::kFlagSym | gptq::kFlagGIdx)) return {fmt("unknown flag bits 0x%08X", flags)};
  if (le::u32(&b[24]) != 0 || le::u32(&b[28]) != 0) return {fmt("reserved header words must be 0")};
  if (static_cast<int64_t>(k) != t.k || static_cast<int64_t>(n) != t.n)
    return {fmt("shape mismatch: container has k=%u n=%u, tensor is n=%lld k=%lld", k, n,
                static_cast<long long>(t.n), static_cast<long long>(t.k))};
  if (k % 8 != 0) return {fmt("k=%u is not a multiple of 8 (qweight packs 8 inputs per int32)", k)};
  if (n % 8 != 0) return {fmt("n=%u is not a multiple of 8 (qzeros packs 8 columns per int32)", n)};
  if (group_size == 0) return {fmt("group_size is 0 (must be >= 1)")};
  const bool sym = flags & gptq::kFlagSym, has_g_idx = flags & gptq::kFlagGIdx;
  const RawLayout l = raw_layout(k, n, group_size, has_g_idx);
  if (b.size() != l.total) {
    const char* what = b.size() < l.total ? "truncated" : "oversized";
    return {fmt("%s container: %zu bytes, header (k=%u n=%u group_size=%u%s) needs %llu", what, b.size(), k,
                n, group_size, has_g_idx ? " g_idx" : "", static_cast<unsigned long long>(l.total))};
  }
  // From here every offset below l.total is inside the buffer.
  const uint8_t* qweight = b.data() + l.qweight;
  const uint8_t* qzeros = b.data() + l.qzeros;
  const uint8_t* scales = b.data() + l.scales;
  const uint8_t* g_idx = b.data() + l.g_idx;
  const uint64_t G = l.groups, zcols = n / 8;

  if (has_g_idx) {
    for (uint64_t i = 0; i < k; ++i) {
      const int32_t g = static_cast<int32_t>(le::u32(g_idx + 4 * i));
      if (g < 0 || static_cast<uint64_t>(g) >= G)
        return {fmt("g_idx[%llu] = %d is out of range [0, %llu)", static_cast<unsigned long long>(i), g,
                    static_cast<unsigned long long>(G))};
    }
  }
  for (uint64_t g = 0; g < G; ++g)
    for (uint64_t c = 0; c < n; ++c) {
      const uint16_t bits = le::u16(scales + 2 * (g * n + c));
      if (!std::isfinite(scalar::from_f16(bits)))
        return {fmt("non-finite scale at group %llu, column %llu (bits 0x%04X)", static_cast<unsigned long long>(g),
                    static_cast<unsigned long long>(c), bits)};
    }
  auto stored_zero = [&](uint64_t g, uint64_t c) {
    return static_cast<int>((le::u32(qzeros + 4 * (g * zcols + c / 8)) >> (4 * (c % 8))) & 0xF);
  };
  if (sym && G > 0 && n > 0) {
    const int first = stored_zero(0, 0);
    for (uint64_t g = 0; g < G; ++g)
      for (uint64_t c = 0; c < n; ++c)
        if (const int z = stored_zero(g, c); z != first)
          return {fmt("checkpoint claims symmetric but qzeros are not constant: group %llu, column %llu stores "
                      "zero %d (true zero %d), group 0 column 0 stores %d",
                      static_cast<unsigned long long>(g), static_cast<unsigned long long>(c), z, z + 1, first)};
    if (first != gptq::kSymZero - 1)
      return {fmt("checkpoint claims symmetric but its constant zero is %d (stored %d); the symmetric zero must "
                  "be 8 (stored 7, qzeros 0x77777777)",
                  first + 1, first)};
  }

  value.assign(static_cast<size_t>(n) * k, 0.0);
  mag.assign(value.size(), 0.0);
  for (uint64_t i = 0; i < k; ++i) {
    const uint64_t g = has_g_idx ? static_cast<uint64_t>(le::u32(g_idx + 4 * i)) : i / group_size;
    const uint8_t* qrow = qweight + 4 * ((i / 8) * n);
    const int shift = static_cast<int>(4 * (i % 8));
    for (uint64_t c = 0; c < n; ++c) {
      const int q = static_cast<int>((le::u32(qrow + 4 * c) >> shift) & 0xF);
      const int z = stored_zero(g, c) + 1;  // v1: the file stores zero - 1
      const double s = scalar::from_f16(le::u16(scales + 2 * (g * n + c)));
      const size_t o = static_cast<size_t>(c * k + i);
      value[o] = s * (q - z);
      mag[o] = std::fabs(s) * (q + z);
    }
  }
  return {};
}

constexpr std::string_view kSrc =
    "AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py (pack, forward), "
    "auto_gptq/quantization/quantizer.py; container: oracles/formats/gptq.hpp";

}  // namespace

namespace gptq {

Layout layout(const Params& p) {
  constexpr int64_t kMaxDim = std::numeric_limits<uint32_t>::max();
  if (p.k < 0 || p.n < 0 || p.k > kMaxDim || p.n > kMaxDim)
    throw std::invalid_argument("gptq::layout: k and n must be in [0, 2^32)");
  if (p.k % 8 != 0 || p.n % 8 != 0) throw std::invalid_argument("gptq::layout: k and n must be multiples of 8");
  if (p.group_size < 1) throw std::invalid_argument("gptq::layout: group_size must be >= 1");
  const RawLayout r = raw_layout(static_cast<uint64_t>(p.k), static_cast<uint64_t>(p.n),
                                 static_cast<uint64_t>(p.group_size), p.has_g_idx);
  if (r.total == kSat || r.total > std::numeric_limits<size_t>::max())
    throw std::invalid_argument("gptq::layout: container too large");
  return {static_cast<int64_t>(r.groups), r.qweight, r.qzeros, r.scales, r.g_idx, r.total};
}

size_t container_bytes(const Params& p) { return layout(p).total; }

std::vector<uint8_t> build(const Params& p, std::span<const int32_t> codes, std::span<const int32_t> zeros,
                           std::span<const uint16_t> scale_bits, std::span<const int32_t> g_idx) {
  const Layout l = layout(p);
  const size_t n = static_cast<size_t>(p.n), k = static_cast<size_t>(p.k), G = static_cast<size_t>(l.groups);
  if (codes.size() != n * k) throw std::invalid_argument("gptq::build: codes must hold n*k entries");
  if (zeros.size() != G * n) throw std::invalid_argument("gptq::build: zeros must hold G*n entries");
  if (scale_bits.size() != G * n) throw std::invalid_argument("gptq::build: scale_bits must hold G*n entries");
  if (g_idx.size() != (p.has_g_idx ? k : 0))
    throw std::invalid_argument("gptq::build: g_idx must hold k entries when has_g_idx, else none");
  for (int32_t q : codes)
    if (q < 0 || q > 15) throw std::invalid_argument("gptq::build: codes must be in 0..15");
  for (int32_t z : zeros)
    if (z < 1 || z > 16)
      throw std::invalid_argument("gptq::build: true zeros must be in 1..16 (v1 stores zero-1 in a nibble)");

  std::vector<uint8_t> out(l.total, 0);
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  le::put32(&out[8], static_cast<uint32_t>(k));
  le::put32(&out[12], static_cast<uint32_t>(n));
  le::put32(&out[16], static_cast<uint32_t>(p.group_size));
  le::put32(&out[20], (p.sym ? kFlagSym : 0u) | (p.has_g_idx ? kFlagGIdx : 0u));
  for (size_t r = 0; r < k / 8; ++r)
    for (size_t c = 0; c < n; ++c) {
      uint32_t w = 0;
      for (size_t j = 0; j < 8; ++j) w |= static_cast<uint32_t>(codes[c * k + 8 * r + j]) << (4 * j);
      le::put32(&out[l.qweight + 4 * (r * n + c)], w);
    }
  for (size_t g = 0; g < G; ++g)
    for (size_t cc = 0; cc < n / 8; ++cc) {
      uint32_t w = 0;
      for (size_t j = 0; j < 8; ++j) w |= static_cast<uint32_t>(zeros[g * n + 8 * cc + j] - 1) << (4 * j);
      le::put32(&out[l.qzeros + 4 * (g * (n / 8) + cc)], w);
    }
  for (size_t i = 0; i < G * n; ++i) le::put16(&out[l.scales + 2 * i], scale_bits[i]);
  for (size_t i = 0; i < g_idx.size(); ++i) le::put32(&out[l.g_idx + 4 * i], static_cast<uint32_t>(g_idx[i]));
  return out;
}

}  // namespace gptq

namespace formats {
const FormatInfo& format_gptq_int4() {
  static const FormatInfo f{QGATE_FORMAT_HEAD(gptq_int4), 16, 8, false, {}, kSrc,
                            nullptr, nullptr, nullptr, decode_gptq};
  return f;
}
}  // namespace formats

}  // namespace qgate

namespace qgate::gptq {

const char* w4a8_accepts(const QTensor& t) {
  if (t.bytes.size() < kHeaderBytes) return "not a GPTQ container";
  uint32_t h[4];
  std::memcpy(h, t.bytes.data() + 8, 16);
  if (h[3] & kFlagGIdx) return "the W4A8 kernel needs contiguous groups (no act-order g_idx)";
  if (h[2] % 32 != 0) return "the W4A8 kernel needs a group size that is a multiple of 32";
  return nullptr;
}

const char* w4a8_sym_accepts(const QTensor& t) {
  if (t.bytes.size() < kHeaderBytes) return "not a GPTQ container";
  uint32_t h[4];
  std::memcpy(h, t.bytes.data() + 8, 16);
  if (!(h[3] & kFlagSym)) return "the symmetric W4A8 kernel folds in zero 8: it refuses a checkpoint not declared symmetric";
  return w4a8_accepts(t);
}

}  // namespace qgate::gptq
