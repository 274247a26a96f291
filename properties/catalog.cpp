#include "properties/catalog.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <iostream>

#include "properties/case_file.hpp"
#include "properties/rc_driver.hpp"
#include "kernels/mutant.hpp"
#include "properties/fused_case.hpp"
#include "properties/moe_case.hpp"

namespace qgate {

std::span<const PropertyInfo> all_properties() {
  static const std::array<PropertyInfo, static_cast<size_t>(PropertyId::count)> t = [] {
    std::array<PropertyInfo, static_cast<size_t>(PropertyId::count)> rows = {{
#define QGATE_PROPERTY(id, applies, cases, plan, what) {PropertyId::id, #id, #applies, cases, plan, what, {}},
#include "properties/properties.inc"
#undef QGATE_PROPERTY
    }};
    for (PropertyInfo& p : rows) {
      std::string err;
      if (!parse_plan(p.plan_text, p.plan, err)) {  // a broken row in properties.inc: nothing can run
        std::cerr << "qgate: properties.inc row " << p.name << ": bad plan \"" << p.plan_text << "\": " << err << "\n";
        std::abort();
      }
    }
    return rows;
  }();
  return t;
}

const PropertyInfo* find_property(std::string_view name) {
  for (const PropertyInfo& p : all_properties())
    if (p.name == name) return &p;
  return nullptr;
}

bool applies(const PropertyInfo& p, const KernelInfo& k) {
  // Fusion and attention properties name their op; "any" means the weight ops only.
  if (is_fused(k.op)) return p.applies == op_name(k.op);
  if (k.op == Op::moe_matmul) return p.applies == op_name(k.op);  // its own properties only
  // A kernel that declares itself non-deterministic (atomics, split-K in any order) is not
  // held to bit-identical reruns; its bound covers every summation order of its depth.
  if (p.plan.rerun && !k.deterministic) return false;
  if (p.plan.driver == Driver::scale_patterns) {  // block formats with a scale field
    const FormatInfo& f = format_info(k.format);
    std::string unused;
    if (first_field_patterns(f, unused).empty()) return false;
  }
  // gate_up is matmul-shaped (activations in, one output per weight row pair).
  return p.applies == "any" || p.applies == op_name(k.op) || (p.applies == "matmul" && k.op == Op::gate_up);
}

uint64_t default_seed() {
  if (const char* s = std::getenv("QGATE_SEED")) return std::strtoull(s, nullptr, 0);
  return 0x5eed2026ull;
}

std::string repro_mutant_suffix() {
  const mutant::Id id = mutant::active();
  for (const mutant::Info& m : mutant::all())
    if (m.id == id) return " --mutant " + std::string(m.name);
  return {};
}

namespace {

int64_t k_unit(const KernelInfo& k) {
  const FormatInfo& f = format_info(k.format);
  const int64_t blk = f.tensor_level() ? 32 : f.block_elems;
  return std::lcm(blk, act_block(k.prec.act));
}

std::vector<int64_t> positive(std::initializer_list<int64_t> v) {
  std::vector<int64_t> out;
  for (int64_t x : v)
    if (x >= 1 && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

// Shapes derived from the kernel's declared tile; the first entries are the smallest so
// RapidCheck shrinks toward them. M and N: one tile less, equal and more, then past two full
// tiles (2t + 1, 3t - 1). K, in units of k_unit (a whole block, a whole activation block): the
// declared tile.k is the K one pass of the kernel's loop covers (a GPU mat-vec's sweep of all
// its threads, a GEMM stage), so ragged shapes draw 0..3 full passes plus every kind of
// remainder (none, one unit, a pass less one unit): the tail after one or more full passes,
// and a second pass at all, are exercised for every kernel.
struct ShapeSets {
  std::vector<int64_t> m, n, kblocks;
};
ShapeSets shapes(const KernelInfo& k, bool ragged) {
  ShapeSets s;
  const bool gptq = format_info(k.format).tensor_level();
  const int tm = k.tile.m, tn = k.tile.n;
  if (k.op == Op::dequant) s.m = {1};
  else if (k.max_m > 0) s.m = positive({1, 2, 3, k.max_m - 1, k.max_m});
  else s.m = positive({1, tm - 1, tm, tm + 1, 2 * tm + 1, 3 * tm - 1});
  if (gptq) s.n = {8, 16, 24};
  else if (ragged) s.n = positive({1, tn - 1, tn, tn + 1, 2 * tn + 1, 3 * tn - 1, 7});
  else s.n = positive({1, 2, 3, 5});
  const int64_t unit = k_unit(k), tk = std::max<int64_t>(1, (std::max<int64_t>(k.tile.k, 1) + unit - 1) / unit);
  if (!ragged) s.kblocks = {1, 2, 3};
  else if (tk == 1) s.kblocks = {1, 2, 3, 5, 7};
  else s.kblocks = positive({1, 2, tk - 1, tk, tk + 1, 2 * tk - 1, 2 * tk + 1, 3 * tk + tk / 2});
  return s;
}

CaseSpec gen_spec(const KernelInfo& k, const PropertyInfo& p) {
  const ShapeSets sh = shapes(k, p.plan.shapes == Shapes::ragged);
  CaseSpec s;
  s.m = *rc::gen::elementOf(sh.m);
  s.n = *rc::gen::elementOf(sh.n) * (k.op == Op::gate_up ? 2 : 1);  // gate_up: N gate rows, N up rows
  s.k = k_unit(k) * *rc::gen::elementOf(sh.kblocks);
  s.codes = draw_from(p.plan.codes, CodeMode::random);
  s.scales = draw_from(p.plan.scales, ScaleMode::normal);
  s.act = draw_from(p.plan.act, ActMode::normal);
  if (p.plan.shapes == Shapes::many_rows) {
    // More rows than a GPU runs blocks at once (an H200 holds 132 x 5 mat-vec blocks of 4
    // or 8 rows), so a launch takes more than one wave and a grid capped at one wave, or a
    // row loop that stops early, leaves rows unwritten; K the least whose rows are whole
    // 16-byte pieces (the CUDA mat-vec's fastest form takes them), N 12289 at K <= 256,
    // fewer for longer rows (at most 12289 x 256 elements, at least 4099 rows), M = 1 (the
    // decode case).
    const FormatInfo& f = format_info(k.format);
    s.m = 1;
    s.k = k_unit(k);
    if (!f.tensor_level())
      while ((s.k / f.block_elems) * f.block_bytes % 16) s.k += k_unit(k);
    s.n = std::clamp<int64_t>(12289 * 256 / s.k, 4099, 12289) | 1;
    if (f.tensor_level()) s.n = (s.n + 7) / 8 * 8;  // whole 8-column words
    s.n *= k.op == Op::gate_up ? 2 : 1;
  }
  s.seed = *rc::gen::inRange<uint64_t>(0, 1ull << 32);
  if (format_info(k.format).tensor_level()) {
    s.group = *rc::gen::element(32, 64, 128, 8);
    s.sym = *rc::gen::arbitrary<bool>();
    s.gidx = *rc::gen::element(false, false, true);
  }
  return s;
}

std::string repro_line(const KernelInfo& k, const PropertyInfo& p, const CaseSpec& s) {
  return "qgate repro --kernel " + k.name + " --property " + std::string(p.name) + " --case '" + to_string(s) + "'" + repro_mutant_suffix();
}

bool has_evidence(const Verdict& v) { return !v.vacuous(); }

// Elements (of `bytes` per element) where two outputs differ.
int64_t differing(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t bytes) {
  if (a.size() != b.size()) return -1;
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); i += bytes) n += std::memcmp(a.data() + i, b.data() + i, bytes) != 0;
  return n;
}

// session_sequence: each case is a sequence of launches in the process that runs the
// kernel: a big case, a small one, the big shape with new data, the big case again
// (bit-identical to its first run where the kernel is deterministic) and, for kernels that
// run in a process of their own, the big case as the first launch of a fresh process. A
// lookup table built on the first call, a workspace sized by the first shape, a buffer
// not cleared between calls or a counter that survives a call shows as a wrong result or
// a rerun that differs.
PropertyRun run_session_sequence(const KernelInfo& k, const PropertyInfo& p, const std::string& regression_dir,
                                 PropertyRun& r) {
  const ShapeSets big = shapes(k, true);
  const bool mm = k.op != Op::dequant;
  const FormatInfo& f = format_info(k.format);
  const size_t elem = k.prec.out == OutType::f32 ? 4 : 2;
  for (int i = 0; i < p.cases && r.pass; ++i) {
    const uint64_t seed = r.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) * 0x632BE59BD9B4E019ull;
    CaseSpec b;
    b.m = big.m.back();
    b.n = big.n[big.n.size() - 1 - static_cast<size_t>(i) % 2] * (k.op == Op::gate_up ? 2 : 1);
    b.k = k_unit(k) * big.kblocks[big.kblocks.size() - 1 - static_cast<size_t>(i) % 2];
    b.seed = seed & 0xFFFFFFFFull;
    if (f.tensor_level()) b.group = 32, b.sym = i % 2 == 1;
    CaseSpec small = b;
    small.m = 1, small.n = f.tensor_level() ? 8 : (k.op == Op::gate_up ? 2 : 1), small.k = k_unit(k);
    small.seed = b.seed ^ 0x5A5A5A5Aull;
    CaseSpec b2 = b;
    b2.seed = b.seed ^ 0xC3C3C3C3ull;
    const std::string where = " (launch sequence " + std::to_string(i) + ": " + to_string(b) + ", then " + to_string(small) +
                              ", then " + to_string(b2) + ")";
    auto fail = [&](const CaseSpec& s, const std::string& why) {
      r.pass = false;
      r.failure = why + where;
      r.repro = "qgate gate --kernel " + k.name + " --property session_sequence --seed " + std::to_string(r.seed) +
                repro_mutant_suffix();
      auto c = std::make_shared<Case>();
      if (materialize(f, s, mm, *c).empty()) r.failing = c;
      if (!regression_dir.empty() && r.failing) {
        std::string err;
        r.case_file = write_case_file(regression_dir, k.name, std::string(p.name), *r.failing, r.failure, err);
      }
    };
    Case cb, cs, cb2;
    for (auto [spec, c] : {std::pair{&b, &cb}, {&small, &cs}, {&b2, &cb2}})
      if (std::string e = materialize(f, *spec, mm, *c); !e.empty()) {
        r.pass = false;
        r.failure = "generator: " + e + where;
        return r;
      }
    std::vector<uint8_t> first, again, fresh;
    struct Step { const Case* c; const CaseSpec* s; std::vector<uint8_t>* out; const char* what; };
    const Step steps[] = {{&cb, &b, &first, "first launch"}, {&cs, &small, nullptr, "second launch (small)"},
                          {&cb2, &b2, nullptr, "third launch (new data)"}, {&cb, &b, &again, "fourth launch (the first case again)"}};
    for (const Step& st : steps) {
      const CaseOutcome o = run_case(k, *st.c, false, st.out);
      if (o.kind == CaseOutcome::Kind::rejected_by_kernel) { ++r.discarded; continue; }
      ++r.cases;
      r.evidence += has_evidence(o.verdict);
      r.max_ratio = std::max(r.max_ratio, o.verdict.max_ratio);
      if (!o.pass()) return fail(*st.s, std::string(st.what) + ": " + o.summary()), r;
    }
    if (k.deterministic && !first.empty() && !again.empty()) {
      if (const int64_t d = differing(first, again, elem); d != 0)
        return fail(b, "stale state: the first case rerun after 3 other launches in the same process differs from its first run in " +
                           std::to_string(d) + " of " + std::to_string(first.size() / elem) + " elements"), r;
    }
    if (k.restart) {
      k.restart(k);
      const CaseOutcome o = run_case(k, cb, false, &fresh);
      ++r.cases;
      if (!o.pass()) return fail(b, "first launch of a fresh process: " + o.summary()), r;
      if (k.deterministic && !first.empty()) {
        if (const int64_t d = differing(first, fresh, elem); d != 0)
          return fail(b, "stale state: the first case run in a fresh process differs from its run after other launches in " +
                             std::to_string(d) + " of " + std::to_string(first.size() / elem) + " elements"), r;
      }
    }
  }
  r.coverage = "sequences: " + std::to_string(p.cases) + " x 4 launches in one process" + (k.restart ? " + 1 in a fresh one" : "");
  if (r.pass && r.evidence * 2 < r.cases) {
    r.pass = false;
    r.failure = "vacuous: only " + std::to_string(r.evidence) + " of " + std::to_string(r.cases) + " launches had mostly non-zero expected output";
  }
  return r;
}

}  // namespace

CaseOutcome run_spec(const KernelInfo& k, const PropertyInfo& p, const CaseSpec& spec, Case* materialized) {
  if (is_fused(k.op)) {  // fused kernels take no weight case (properties/fused_case.hpp)
    CaseOutcome o;
    o.kind = CaseOutcome::Kind::oracle_error;
    o.message = k.name + " is a fused kernel: its case is a fused spec (qgate repro --kernel " + k.name + " --case 'op=...')";
    return o;
  }
  Case c;
  const std::string err = materialize(format_info(k.format), spec, k.op != Op::dequant, c);
  CaseOutcome o;
  if (!err.empty()) {
    o.kind = CaseOutcome::Kind::oracle_error;
    o.message = "generator: " + err;
    return o;
  }
  o = run_case(k, c, p.plan.rerun);
  if (materialized) *materialized = std::move(c);
  return o;
}

PropertyRun run_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt) {
  if (is_fused(k.op)) return run_fused_property(k, p, opt);
  if (k.op == Op::moe_matmul) return run_moe_property(k, p, opt);
  PropertyRun r;
  r.seed = opt.seed ? opt.seed : default_seed();
  // After r.pass and r.failure are set: the repro line, the case and its regression file.
  auto record_failure = [&](const CaseSpec& s) {
    r.pass = false;
    r.repro = repro_line(k, p, s);
    auto shrunk = std::make_shared<Case>();
    if (materialize(format_info(k.format), s, k.op != Op::dequant, *shrunk).empty()) r.failing = shrunk;
    if (!opt.regression_dir.empty()) {
      Case c;
      run_spec(k, p, s, &c);
      std::string err;
      r.case_file = write_case_file(opt.regression_dir, k.name, std::string(p.name), c, r.failure, err);
      if (r.case_file.empty()) r.failure += " (regression case not written: " + err + ")";
    }
  };

  if (p.plan.driver == Driver::scale_patterns) {
    const FormatInfo& f = format_info(k.format);
    const std::vector<uint32_t> all = first_field_patterns(f, r.coverage);
    constexpr size_t kChunk = 4096;  // rows per case, so memory stays small
    for (size_t at = 0; at < all.size() && r.pass; at += kChunk) {
      const std::vector<uint32_t> part(all.begin() + static_cast<std::ptrdiff_t>(at),
                                       all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), at + kChunk)));
      Case c;
      materialize_scale_sweep(f, part, r.seed + at, c);
      const CaseOutcome o = run_case(k, c, false);
      ++r.cases;
      r.evidence += has_evidence(o.verdict);
      if (!o.pass()) {
        r.pass = false;
        r.failure = o.summary() + " (patterns " + std::to_string(at) + ".." + std::to_string(at + part.size() - 1) + ")";
        r.repro = "qgate gate --kernel " + k.name + " --property every_scale_pattern --seed " + std::to_string(r.seed);
        r.failing = std::make_shared<const Case>(c);
        if (!opt.regression_dir.empty()) {
          std::string err;
          r.case_file = write_case_file(opt.regression_dir, k.name, std::string(p.name), c, r.failure, err);
        }
      }
    }
    return r;
  }

  if (p.plan.driver == Driver::session) return run_session_sequence(k, p, opt.regression_dir, r);

  if (p.plan.driver == Driver::every_code) {  // exhaustive: every code at every lane
    const FormatInfo& f = format_info(k.format);
    CaseSpec s;
    s.codes = CodeMode::diagonal;
    const int lanes = f.tensor_level() ? 8 : f.codes();
    s.n = f.tensor_level() ? 16 : exhaustive_rows(f);  // every code x position, then rows separating positions
    s.k = f.tensor_level() ? 32 : f.block_elems;  // one block: every code position once per row
    s.seed = r.seed;
    const CaseOutcome o = run_spec(k, p, s);
    int valid = 0;
    for (int c = 0; c < f.code_levels; ++c) valid += !f.code_valid || f.code_valid(c);
    r.cases = 1;
    r.evidence = has_evidence(o.verdict);
    r.max_ratio = o.verdict.max_ratio;
    r.coverage = "exhaustive: " + std::to_string(valid * lanes) + " of " + std::to_string(valid * lanes) +
                 " (code x lane)" +
                 (f.tensor_level() ? std::string() : ", every pair of lanes holding different codes in some row");
    if (!o.pass()) r.failure = o.summary(), record_failure(s);
    return r;
  }

  const auto failed = sample_cases<CaseSpec>(k, p, r, [&] { return gen_spec(k, p); }, [&](const CaseSpec& s) {
    const CaseOutcome o = run_spec(k, p, s);
    return Sample{o.pass(), o.kind == CaseOutcome::Kind::rejected_by_kernel, has_evidence(o.verdict), o.verdict.max_ratio,
                  o.kind == CaseOutcome::Kind::rejected_by_kernel ? o.message : o.summary()};
  });
  if (failed) record_failure(*failed);
  return r;
}

}  // namespace qgate
