#include "properties/gen/materialize.hpp"

#include <array>
#include <cmath>
#include <cstring>

#include "oracles/formats/gptq.hpp"
#include "oracles/formats/scalar.hpp"

namespace qgate {
namespace {

uint64_t mix(uint64_t a, uint64_t b) {
  Rng r(a * 0x100000001B3ull ^ b);
  return r.next();
}

uint16_t f16_field(Rng& r, ScaleMode mode, bool signed_ok) {
  auto normal = [&] {  // magnitude in [2^-10, 2^-3)
    return scalar::to_f16(std::ldexp(1.0 + r.uniform(), -10 + static_cast<int>(r.below(7))));
  };
  const uint16_t sign = signed_ok && r.below(2) ? 0x8000 : 0;
  switch (mode) {
    case ScaleMode::subnormal: return static_cast<uint16_t>(sign | (1 + r.below(0x3FF)));
    case ScaleMode::smallest_normal: return static_cast<uint16_t>(sign | 0x0400);
    case ScaleMode::largest: return static_cast<uint16_t>(sign | 0x7BFF);
    case ScaleMode::zero: return r.below(2) ? 0x8000 : 0x0000;
    case ScaleMode::negative: return normal() | 0x8000;
    default: {
      const uint16_t v = normal();
      return signed_ok && r.below(2) ? (v | 0x8000) : v;
    }
  }
}

uint32_t f32_field(Rng& r, ScaleMode mode, bool for_matmul) {
  const uint32_t sign = r.below(2) ? 0x80000000u : 0u;
  auto normal = [&] { return scalar::to_f32(std::ldexp(1.0 + r.uniform(), -8 + static_cast<int>(r.below(7)))); };
  switch (mode) {
    // In a contraction an f32-subnormal block scale makes the kernel's scale product
    // underflow, an error amplified by the integer dot that the bound model does not
    // carry: contractions get tiny normal scales [2^-100, 2^-99) instead (their products
    // with activation scales stay normal); dequant gets true subnormals.
    case ScaleMode::subnormal: return sign | (for_matmul ? 0x0D800000u + r.below(0x7FFFFF) : 1 + r.below(0x7FFFFF));
    case ScaleMode::smallest_normal: return sign | (for_matmul ? 0x0D800000u : 0x00800000u);
    case ScaleMode::largest: return sign | (for_matmul ? 0x5D800000u /* 2^60 */ : 0x7F7FFFFFu);
    case ScaleMode::zero: return r.below(2) ? 0x80000000u : 0u;
    case ScaleMode::negative: return normal() | 0x80000000u;
    default: return normal();
  }
}

uint32_t small_field(Rng& r, FieldKind kind, int bits, ScaleMode mode) {
  const uint32_t levels = kind == FieldKind::ubits ? (1u << bits)
                        : kind == FieldKind::u4 ? 16 : kind == FieldKind::s8 ? 256 : 64;
  switch (mode) {
    case ScaleMode::sub_extreme: return r.below(2) ? levels - 1 : (kind == FieldKind::s8 ? 0x80 : 0);
    case ScaleMode::smallest_normal: return kind == FieldKind::s6 ? 33 : 1;  // the least non-zero step
    case ScaleMode::zero: return kind == FieldKind::s6 ? 32 : 0;  // s6 stores value + 32
    case ScaleMode::largest: return kind == FieldKind::s8 ? 0x7F : levels - 1;
    case ScaleMode::negative:
      if (kind == FieldKind::s8) return 0x80 + r.below(128);
      if (kind == FieldKind::s6) return r.below(32);
      return r.below(levels);
    default: return r.below(levels);
  }
}

uint32_t field_value(Rng& r, const FieldSpec& fs, ScaleMode mode, bool for_matmul) {
  if (mode == ScaleMode::mixed) {  // this field of this block: a class of its own
    static constexpr ScaleMode kClasses[] = {ScaleMode::normal, ScaleMode::subnormal, ScaleMode::smallest_normal,
                                             ScaleMode::largest, ScaleMode::zero, ScaleMode::negative,
                                             ScaleMode::sub_extreme};
    mode = kClasses[r.below(std::size(kClasses))];
  }
  switch (fs.kind) {
    case FieldKind::f16: return f16_field(r, mode, true);  // d, dmin, m: fp16 of either sign
    case FieldKind::f32: return f32_field(r, mode, for_matmul);
    case FieldKind::e8m0:
      switch (mode) {
        case ScaleMode::subnormal: case ScaleMode::zero: return r.below(4);
        case ScaleMode::smallest_normal: return 1;
        case ScaleMode::largest: return for_matmul ? 127 + 60 : 254;
        default: return 127 - 8 + r.below(17);
      }
    case FieldKind::ue4m3:  // ggml's decoding: bit 7 ignored, 0x7F is 0, 0xFF is 480
      switch (mode) {
        case ScaleMode::subnormal: return (r.below(2) ? 0x80u : 0u) | (1 + r.below(7));
        case ScaleMode::smallest_normal: return (r.below(2) ? 0x80u : 0u) | 0x08u;
        case ScaleMode::zero: return std::array<uint32_t, 3>{0x00, 0x80, 0x7F}[r.below(3)];
        case ScaleMode::largest: return r.below(2) ? 0x7Eu : 0xFFu;
        case ScaleMode::negative: return 0x80u | ((4 + r.below(7)) << 3) | r.below(8);
        default: return ((4 + r.below(7)) << 3) | r.below(8);
      }
    case FieldKind::s16: return 0;  // derived
    default: return small_field(r, fs.kind, fs.bits, mode);
  }
}

std::string materialize_gptq(const FormatInfo& f, const CaseSpec& s, Case& out) {
  if (s.n % 8 || s.k % 8) return "gptq_int4 needs n and k multiples of 8";
  gptq::Params p{s.n, s.k, s.group, s.sym, s.gidx};
  const int64_t groups = (s.k + s.group - 1) / s.group;
  Rng r(s.seed);
  std::vector<int32_t> codes(static_cast<size_t>(s.n * s.k)), zeros(static_cast<size_t>(groups * s.n)), g_idx;
  std::vector<uint16_t> scales(zeros.size());
  const uint64_t salt = r.next();
  const int64_t hot = r.below(8);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k) codes[n * s.k + k] = pattern_code(s.codes, 16, 8, n, k, 8, salt, hot);
  for (auto& z : zeros) z = s.sym ? gptq::kSymZero : 1 + static_cast<int32_t>(r.below(16));
  for (auto& sc : scales) sc = f16_field(r, s.scales, true);
  if (s.gidx) {  // act-order: a permutation of the default group assignment
    g_idx.resize(static_cast<size_t>(s.k));
    for (int64_t k = 0; k < s.k; ++k) g_idx[k] = static_cast<int32_t>(k / s.group);
    for (int64_t k = s.k - 1; k > 0; --k) std::swap(g_idx[k], g_idx[r.below(static_cast<uint32_t>(k + 1))]);
  }
  out.w.fmt = &f;
  out.w.n = s.n;
  out.w.k = s.k;
  out.w.bytes = gptq::build(p, codes, zeros, scales, g_idx);
  return {};
}

}  // namespace

int32_t pattern_code(CodeMode mode, int levels, int zero_code, int64_t row, int64_t col, int elems_per_block,
                     uint64_t salt, int64_t hot_lane) {
  const uint32_t L = static_cast<uint32_t>(levels);
  switch (mode) {
    case CodeMode::uniform: return static_cast<int32_t>(salt % L);
    case CodeMode::n_only: return static_cast<int32_t>(mix(salt, static_cast<uint64_t>(row)) % L);
    // Period = the code count along k: "codes 0..L-1 in order", the pattern that hid crossed lanes.
    case CodeMode::k_only: return static_cast<int32_t>((salt + static_cast<uint64_t>(col)) % L);
    case CodeMode::both:
    case CodeMode::random: return static_cast<int32_t>(mix(salt, static_cast<uint64_t>(row) * 0x9E3779B9ull + col) % L);
    case CodeMode::one_hot: {
      const int z = zero_code >= 0 ? zero_code : 0;
      if (col % elems_per_block != hot_lane % elems_per_block) return z;
      int32_t c = static_cast<int32_t>(mix(salt, static_cast<uint64_t>(row * 131 + col)) % L);
      return c == z ? (c + 1) % levels : c;
    }
    case CodeMode::diagonal: {
      if (row < levels) return static_cast<int32_t>((static_cast<uint64_t>(row) + col) % L);
      // Separating rows: bit (row - levels) of the position picks the zero code or one half
      // the code range away (a different value in every format).
      const int z = zero_code >= 0 ? zero_code : 0;
      const int64_t bit = row - levels, position = col % elems_per_block;
      const int other = (z + levels / 2 + 1) % levels;
      return (position >> bit) & 1 ? (other == z ? (z + 1) % levels : other) : z;
    }
  }
  return 0;
}

int exhaustive_rows(const FormatInfo& f) {
  int bits = 0;
  while ((1 << bits) < f.codes()) ++bits;
  return f.code_levels + bits;
}

std::vector<uint32_t> first_field_patterns(const FormatInfo& f, std::string& coverage) {
  std::vector<uint32_t> v;
  if (f.tensor_level() || f.fields.empty()) return v;
  switch (f.fields[0].kind) {
    case FieldKind::f16:
      for (uint32_t b = 0; b < 65536; ++b)
        if ((b & 0x7C00) != 0x7C00) v.push_back(b);
      coverage = "exhaustive: " + std::to_string(v.size()) + " of 63488 finite fp16 patterns of " + f.fields[0].name;
      break;
    case FieldKind::e8m0:
      for (uint32_t b = 0; b < 255; ++b) v.push_back(b);
      coverage = "exhaustive: 255 of 255 e8m0 patterns of " + std::string(f.fields[0].name) + " (0xFF is NaN, refused)";
      break;
    case FieldKind::ue4m3:
      for (uint32_t b = 0; b < 256; ++b) v.push_back(b);
      coverage = "exhaustive: 256 of 256 ue4m3 patterns of " + std::string(f.fields[0].name) + " (ggml's decoding)";
      break;
    case FieldKind::f32:
      for (uint32_t e = 0; e < 255; ++e)
        for (uint32_t m = 0; m < 256; ++m)
          for (uint32_t sgn = 0; sgn < 2; ++sgn) v.push_back((sgn << 31) | (e << 23) | (m * 0x8081u & 0x7FFFFF));
      coverage = "stratified: " + std::to_string(v.size()) + " f32 patterns of " + std::string(f.fields[0].name) +
                 " (every exponent x 256 mantissas x sign)";
      break;
    default: break;
  }
  return v;
}

std::string materialize_scale_sweep(const FormatInfo& f, const std::vector<uint32_t>& patterns, uint64_t seed,
                                    Case& out) {
  if (f.tensor_level()) return "not a block format";
  Rng r(seed);
  const uint64_t salt = r.next();
  out.spec = CaseSpec{};
  out.spec.n = static_cast<int64_t>(patterns.size());
  out.spec.k = f.block_elems;
  out.spec.codes = CodeMode::both;
  out.spec.seed = seed;
  out.w.fmt = &f;
  out.w.n = out.spec.n;
  out.w.k = f.block_elems;
  out.w.bytes.assign(patterns.size() * f.block_bytes, 0);
  out.x.clear();
  BlockFields bf;
  for (size_t row = 0; row < patterns.size(); ++row) {
    bf.codes.resize(static_cast<size_t>(f.codes()));
    for (int i = 0; i < f.codes(); ++i) {
      int32_t c = pattern_code(CodeMode::both, f.code_levels, f.zero_code, static_cast<int64_t>(row), i, f.codes(), salt, 0);
      while (f.code_valid && !f.code_valid(c)) c = (c + 1) % f.code_levels;
      bf.codes[i] = c;
    }
    bf.fields.clear();
    for (const FieldSpec& fs : f.fields)
      for (int c = 0; c < fs.count; ++c) bf.fields.push_back(field_value(r, fs, ScaleMode::normal, false));
    bf.fields[0] = patterns[row];
    f.pack_block(bf, out.w.bytes.data() + row * f.block_bytes);
  }
  return {};
}

std::string materialize(const FormatInfo& f, const CaseSpec& s, bool for_matmul, Case& out) {
  out.spec = s;
  if (f.tensor_level()) {
    if (auto e = materialize_gptq(f, s, out); !e.empty()) return e;
  } else {
    if (s.k % f.block_elems) return "k=" + std::to_string(s.k) + " is not a multiple of the block size";
    Rng r(s.seed);
    const uint64_t salt = r.next();
    const int64_t hot = r.below(static_cast<uint32_t>(f.codes()));
    const int64_t nb = s.k / f.block_elems;
    out.w.fmt = &f;
    out.w.n = s.n;
    out.w.k = s.k;
    out.w.bytes.assign(static_cast<size_t>(s.n * nb * f.block_bytes), 0);
    BlockFields bf;
    for (int64_t row = 0; row < s.n; ++row)
      for (int64_t b = 0; b < nb; ++b) {
        bf.codes.resize(static_cast<size_t>(f.codes()));
        for (int i = 0; i < f.codes(); ++i) {
          int32_t c = pattern_code(s.codes, f.code_levels, f.zero_code, row, b * f.codes() + i, f.codes(),
                                   salt, hot);
          while (f.code_valid && !f.code_valid(c)) c = (c + 1) % f.code_levels;
          bf.codes[i] = c;
        }
        bf.fields.clear();
        for (const FieldSpec& fs : f.fields)
          for (int c = 0; c < fs.count; ++c) bf.fields.push_back(field_value(r, fs, s.scales, for_matmul));
        f.pack_block(bf, out.w.bytes.data() + (row * nb + b) * f.block_bytes);
      }
  }
  out.x.clear();
  if (for_matmul) {
    Rng r(s.seed ^ 0xA5A5A5A5ull);
    out.x.resize(static_cast<size_t>(s.m * s.k));
    const float same = static_cast<float>(r.uniform() * 2 - 1);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t k = 0; k < s.k; ++k) {
        float v = static_cast<float>(r.uniform() * 2 - 1);
        switch (s.act) {
          case ActMode::outliers:
            if (r.below(32) == 0) v *= 500.0f;
            break;
          case ActMode::all_equal: v = same; break;
          case ActMode::zero_rows:
            if (i % 2 == 0) v = 0.0f;
            break;
          default: break;
        }
        out.x[i * s.k + k] = v;
      }
  }
  return {};
}

}  // namespace qgate
