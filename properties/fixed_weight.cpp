#include "properties/fixed_weight.hpp"

#include <algorithm>

#include "properties/case_file.hpp"
#include "kernels/registry.hpp"

namespace qgate {
namespace {

std::vector<int64_t> distinct_in(std::initializer_list<int64_t> v, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t x : v)
    if (x >= 1 && x <= hi && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  std::sort(out.begin(), out.end());
  return out;
}

// M values from the kernel's declared tile (the generated properties use the same sets).
std::vector<int64_t> m_values(const KernelInfo& k) {
  if (k.op == Op::dequant) return {1};
  if (k.max_m > 0) return distinct_in({1, 2, 3, k.max_m - 1, k.max_m}, k.max_m);
  const int64_t tm = k.tile.m;
  return distinct_in({1, tm - 1, tm, tm + 1, 2 * tm + 1, 3 * tm - 1}, 1 << 20);
}

// Row prefixes of the weight: below, at and above the kernel's N tile, and all rows.
std::vector<int64_t> n_values(const KernelInfo& k, int64_t n) {
  const int64_t tn = k.tile.n;
  return distinct_in({1, tn - 1, tn, tn + 1, 2 * tn + 1, 3 * tn - 1, 7, n}, n);
}

struct FixedCase {
  int64_t m = 1, n = 1;
  ActMode act = ActMode::normal;
  uint64_t seed = 0;
};

std::vector<FixedCase> enumerate(const KernelInfo& k, const PropertyInfo& p, int64_t n, uint64_t seed) {
  const std::vector<int64_t> ms = m_values(k);
  const int64_t m_max = ms.back();
  std::vector<FixedCase> v;
  auto add = [&](int64_t m, int64_t rows, ActMode a) {
    Rng r(seed ^ (0x9E3779B97F4A7C15ull * (v.size() + 1)));
    v.push_back({m, rows, a, r.next()});
  };
  // From the property's plan: ragged shapes take every row prefix around the N tile at
  // every M of the tile's set (all rows at M = 1 and the largest M); a plan with activation
  // alternatives runs each at M = 1 and the largest M; otherwise every M of the set.
  if (p.plan.shapes == Shapes::ragged) {
    for (int64_t rows : n_values(k, n))
      for (int64_t m : ms)
        if (rows < n || m == 1 || m == m_max) add(m, rows, ActMode::normal);
  } else if (!p.plan.act.empty()) {
    for (ActMode a : p.plan.act) {
      add(1, n, a);
      if (m_max > 1) add(m_max, n, a);
    }
  } else {
    for (int64_t m : ms) add(m, n, ActMode::normal);
  }
  return v;
}

void fill_activations(Case& c, ActMode act, uint64_t seed) {
  c.x.clear();
  if (c.spec.m == 0) return;
  Rng r(seed ^ 0xA5A5A5A5ull);
  c.x.resize(static_cast<size_t>(c.spec.m * c.w.k));
  const float same = static_cast<float>(r.uniform() * 2 - 1);
  for (int64_t i = 0; i < c.spec.m; ++i)
    for (int64_t j = 0; j < c.w.k; ++j) {
      float v = static_cast<float>(r.uniform() * 2 - 1);
      if (act == ActMode::outliers && r.below(32) == 0) v *= 500.0f;
      if (act == ActMode::all_equal) v = same;
      if (act == ActMode::zero_rows && i % 2 == 0) v = 0.0f;
      c.x[static_cast<size_t>(i * c.w.k + j)] = v;
    }
}

Case make_case(const KernelInfo& k, const QTensor& w, const FixedCase& fc) {
  Case c;
  const FormatInfo& f = *w.fmt;
  const size_t row_bytes = static_cast<size_t>(w.k / f.block_elems) * static_cast<size_t>(f.block_bytes);
  c.w.fmt = w.fmt;
  c.w.n = fc.n;
  c.w.k = w.k;
  c.w.bytes.assign(w.bytes.begin(), w.bytes.begin() + static_cast<std::ptrdiff_t>(row_bytes * static_cast<size_t>(fc.n)));
  c.spec.m = k.op == Op::matmul ? fc.m : 1;
  c.spec.n = fc.n;
  c.spec.k = w.k;
  c.spec.act = fc.act;
  c.spec.seed = fc.seed;
  if (k.op == Op::matmul) fill_activations(c, fc.act, fc.seed);
  return c;
}

}  // namespace

bool applies_fixed(const PropertyInfo& p, const KernelInfo& k) {
  if (k.op == Op::moe_matmul || is_fused(k.op)) return false;  // stacked experts / no weight tensor
  // A given weight serves the sampled properties that draw neither the weights' codes nor
  // their scales, over the plain and ragged shape sets.
  return p.plan.driver == Driver::sampled && !p.plan.draws_weights() &&
         (p.plan.shapes == Shapes::plain || p.plan.shapes == Shapes::ragged) && applies(p, k);
}

std::string fixed_weight_mismatch(const KernelInfo& k, const QTensor& w) {
  if (!w.fmt || w.fmt != &format_info(k.format))
    return "kernel format " + std::string(format_info(k.format).name) + " is not the weight's " +
           (w.fmt ? std::string(w.fmt->name) : "?");
  if (w.fmt->tensor_level()) return "a given weight must be a block format";
  const int64_t ab = act_block(k.prec.act);
  if (k.op == Op::matmul && ab > 1 && w.k % ab != 0)
    return "K=" + std::to_string(w.k) + " is not a multiple of the kernel's " + std::string(act_name(k.prec.act)) +
           " activation block " + std::to_string(ab);
  if (k.accepts)
    if (const char* why = k.accepts(w)) return std::string("kernel refuses this weight: ") + why;
  return {};
}

PropertyRun run_property_fixed(const KernelInfo& k, const PropertyInfo& p, const QTensor& w,
                               const FixedWeightOptions& opt) {
  PropertyRun r;
  r.seed = opt.run.seed ? opt.run.seed : default_seed();
  const std::vector<FixedCase> cases = enumerate(k, p, w.n, r.seed);
  r.coverage = "given weight " + std::to_string(w.n) + " x " + std::to_string(w.k) + ": " +
               std::to_string(cases.size()) + " cases";
  for (const FixedCase& fc : cases) {
    const Case c = make_case(k, w, fc);
    const CaseOutcome o = run_case(k, c, p.plan.rerun);
    if (o.kind == CaseOutcome::Kind::rejected_by_kernel) {
      ++r.discarded;
      continue;
    }
    ++r.cases;
    r.evidence += !o.verdict.vacuous();
    r.max_ratio = std::max(r.max_ratio, o.verdict.max_ratio);
    if (!o.pass()) {
      r.pass = false;
      r.failure = o.summary() + " (given weight rows 0.." + std::to_string(fc.n - 1) + ", M=" + std::to_string(c.spec.m) +
                  ", act=" + name(fc.act) + ")";
      r.repro = opt.repro_prefix + " --kernel " + k.name + " --property " + std::string(p.name) + " --seed " +
                std::to_string(r.seed);
      r.failing = std::make_shared<const Case>(c);
      if (!opt.run.regression_dir.empty()) {
        std::string err;
        r.case_file = write_case_file(opt.run.regression_dir, k.name, std::string(p.name), c, r.failure, err);
        if (r.case_file.empty()) r.failure += " (regression case not written: " + err + ")";
      }
      return r;  // enumerated smallest first: the first failure is the one to show
    }
  }
  if (r.cases == 0) {
    r.pass = false;
    r.failure = "the kernel refused every case over the given weight";
  } else if (r.evidence * 2 < r.cases) {
    r.pass = false;
    r.failure = "vacuous: only " + std::to_string(r.evidence) + " of " + std::to_string(r.cases) +
                " cases had mostly non-zero expected output (is the given weight mostly zero?)";
  }
  return r;
}

GateReport run_gate_fixed(const GateFilter& f, const QTensor& w, const FixedWeightOptions& opt,
                          const std::function<void(size_t, size_t, const std::string&)>& progress) {
  GateReport rep;
  std::vector<const KernelInfo*> selected;
  const auto has_property = [&](const KernelInfo& k) {
    for (const PropertyInfo& p : all_properties())
      if (applies_fixed(p, k) && (f.property.empty() || p.name == f.property)) return true;
    return false;  // e.g. the MoE kernels (stacked experts, not one tensor): none to run on a given weight
  };
  for (const KernelInfo& k : all_kernels())
    // gate_up takes a merged [gate; up] pair, not one tensor: gated on generated weights only.
    if (f.matches(k) && w.fmt == &format_info(k.format) && k.op != Op::gate_up && has_property(k)) selected.push_back(&k);
  for (size_t i = 0; i < selected.size(); ++i) {
    const KernelInfo& k = *selected[i];
    if (progress) progress(i, selected.size(), k.name);
    KernelGate g;
    g.kernel = &k;
    const std::string mismatch = fixed_weight_mismatch(k, w);
    if (runs_here(k, g) && !mismatch.empty()) g.skipped = true, g.skip_reason = mismatch;
    if (!g.skipped) {
      for (const PropertyInfo& p : all_properties()) {
        if (!applies_fixed(p, k) || (!f.property.empty() && p.name != f.property)) continue;
        g.runs.emplace_back(&p, run_property_fixed(k, p, w, opt));
      }
    }
    rep.kernels.push_back(std::move(g));
  }
  return rep;
}

}  // namespace qgate
