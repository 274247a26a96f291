#include "oracles/verdict/verdict.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "oracles/formats/scalar.hpp"

namespace qgate {

std::vector<double> output_as_double(const void* data, int64_t count, OutType type) {
  std::vector<double> v(static_cast<size_t>(count));
  const auto* b = static_cast<const uint8_t*>(data);
  for (int64_t i = 0; i < count; ++i) {
    if (type == OutType::f32) {
      uint32_t bits;
      std::memcpy(&bits, b + 4 * i, 4);
      v[i] = scalar::from_f32(bits);
    } else {
      uint16_t bits;
      std::memcpy(&bits, b + 2 * i, 2);
      v[i] = type == OutType::f16 ? scalar::from_f16(bits) : scalar::from_bf16(bits);
    }
  }
  return v;
}

bool is_poison(const void* data, int64_t i, OutType type) {
  const auto* b = static_cast<const uint8_t*>(data);
  if (type == OutType::f32) {
    uint32_t bits;
    std::memcpy(&bits, b + 4 * i, 4);
    return bits == kPoisonF32;
  }
  uint16_t bits;
  std::memcpy(&bits, b + 2 * i, 2);
  return bits == (type == OutType::f16 ? kPoisonF16 : kPoisonBF16);
}

Verdict judge(const Reference& ref, const void* out, const uint8_t* guard_before, size_t before_bytes,
              const uint8_t* guard_after, size_t after_bytes) {
  Verdict v;
  v.elements = ref.rows * ref.cols;
  v.tie_elements = ref.tie_elements;
  const std::vector<double> got = output_as_double(out, v.elements, ref.out);
  for (int64_t i = 0; i < v.elements; ++i) {
    const double want = ref.exact_rounding ? out_round(ref.value[i], ref.out) : ref.value[i];
    const double bound = ref.bound[i];
    if (want != 0) ++v.nonzero_want;
    if (is_poison(out, i, ref.out)) ++v.poison_left;
    bool bad;
    double err = 0;
    if (!std::isfinite(got[i])) {
      // A non-finite output passes only where the correctly rounded value itself is that
      // Inf, or (bounded mode) where a value inside the bound rounds to that Inf in the
      // output type: overflow that a correct kernel cannot avoid is not a defect.
      const bool inf_admissible =
          std::isinf(got[i]) && (got[i] == want || (!ref.exact_rounding && std::isfinite(want) &&
                                                    out_round(want + std::copysign(bound, got[i]), ref.out) == got[i]));
      bad = !inf_admissible;
      if (bad && std::isfinite(want)) ++v.nonfinite;
    } else if (!std::isfinite(want)) {
      bad = true;
    } else {
      err = std::fabs(got[i] - want);
      bad = ref.exact_rounding ? (got[i] != want || std::signbit(got[i]) != std::signbit(want)) : err > bound;
      if (bound > 0) v.max_ratio = std::max(v.max_ratio, err / bound);
      v.max_abs_err = std::max(v.max_abs_err, err);
    }
    if (bad) {
      if (v.nbad == 0) v.first_bad = {i, i / ref.cols, i % ref.cols, got[i], want, bound};
      ++v.nbad;
    }
  }
  for (size_t i = 0; i < before_bytes; ++i) v.redzone_damaged += guard_before[i] != kRedzoneByte;
  for (size_t i = 0; i < after_bytes; ++i) v.redzone_damaged += guard_after[i] != kRedzoneByte;
  return v;
}

std::string Verdict::summary() const {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%s nbad=%lld/%lld max|err|/bound=%.3g", pass() ? "PASS" : "FAIL",
                        static_cast<long long>(nbad), static_cast<long long>(elements), max_ratio);
  auto add = [&](const char* fmt, auto... args) {
    if (n < static_cast<int>(sizeof buf)) n += std::snprintf(buf + n, sizeof buf - n, fmt, args...);
  };
  if (nbad > 0)
    add(" first_bad=[%lld,%lld] got=%.17g want=%.17g bound=%.3g", static_cast<long long>(first_bad.row),
        static_cast<long long>(first_bad.col), first_bad.got, first_bad.want, first_bad.bound);
  if (nonfinite) add(" nonfinite=%lld", static_cast<long long>(nonfinite));
  if (poison_left) add(" unwritten=%lld", static_cast<long long>(poison_left));
  if (redzone_damaged) add(" redzone_damaged=%lldB", static_cast<long long>(redzone_damaged));
  if (determinism_checked && !deterministic) add(" nondeterministic");
  if (tie_elements) add(" ties=%lld", static_cast<long long>(tie_elements));
  return buf;
}

}  // namespace qgate
