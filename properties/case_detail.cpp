#include "properties/case_detail.hpp"

#include <cmath>
#include <limits>

#include "core/guarded.hpp"
#include "oracles/ops/fusion.hpp"
#include "properties/fused_case.hpp"
#include "properties/testbed.hpp"

namespace qgate {

namespace {
CaseDetail detail_of(const Reference& ref, const GuardedBuffer& out);
}  // namespace

CaseDetail case_detail(const KernelInfo& k, const Case& c) {
  CaseDetail d;
  Reference ref;
  if (DecodeError err = weight_reference(k, c, ref)) {
    d.error = "oracle: " + err.message;
    return d;
  }
  GuardedBuffer out(ref.rows * ref.cols, k.prec.out);
  if (const char* e = k.launch(k, LaunchArgs::weight(c.w, c.x.data(), c.spec.m, out))) {
    d.error = std::string("kernel: ") + e;
    return d;
  }
  return detail_of(ref, out);
}

CaseDetail case_detail(const KernelInfo& k, const FusedCase& c) {
  FusedPrimary p;
  const CaseOutcome o = run_fused_case(k, c, nullptr, &p);
  if (!p.out) {
    CaseDetail d;
    d.error = o.message.empty() ? "no output" : "kernel: " + o.message;
    return d;
  }
  return detail_of(p.ref, *p.out);
}

namespace {

CaseDetail detail_of(const Reference& ref, const GuardedBuffer& out) {
  CaseDetail d;
  d.verdict = judge(ref, out.data(), out.before(), out.redzone(), out.after(), out.redzone());
  d.rows = ref.rows;
  d.cols = ref.cols;
  const int64_t n = ref.rows * ref.cols;
  const std::vector<double> got = output_as_double(out.data(), n, ref.out);
  d.ratio.assign(static_cast<size_t>(n), 0.0f);
  d.cell.assign(static_cast<size_t>(n), CaseDetail::ok);
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const double want = ref.exact_rounding ? out_round(ref.value[i], ref.out) : ref.value[i];
    const double bound = ref.bound[i];
    auto& cell = d.cell[static_cast<size_t>(i)];
    auto& ratio = d.ratio[static_cast<size_t>(i)];
    if (is_poison(out.data(), i, ref.out)) {
      cell = CaseDetail::unwritten;
      ratio = inf;
    } else if (!std::isfinite(got[i])) {
      if (got[i] != want) cell = CaseDetail::nonfinite, ratio = inf;
    } else if (!std::isfinite(want)) {
      cell = CaseDetail::bad, ratio = inf;
    } else {
      const double ae = std::fabs(got[i] - want);
      ratio = bound > 0 ? static_cast<float>(ae / bound) : (ae > 0 ? inf : 0.0f);
      const bool bad = ref.exact_rounding ? (got[i] != want || std::signbit(got[i]) != std::signbit(want)) : ae > bound;
      if (bad) cell = CaseDetail::bad;
    }
  }
  const size_t elem = out.bytes() / static_cast<size_t>(std::max<int64_t>(n, 1));
  const size_t slots = elem ? out.redzone() / elem : 0;
  d.guard_after.assign(slots, 0);
  for (size_t s = 0; s < slots; ++s)
    for (size_t b = 0; b < elem; ++b) d.guard_after[s] |= out.after()[s * elem + b] != kRedzoneByte;
  for (size_t b = 0; b < out.redzone(); ++b) d.redzone_before_damaged += out.before()[b] != kRedzoneByte;
  return d;
}

}  // namespace

}  // namespace qgate
