#include "properties/moe_case.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "oracles/ops/moe.hpp"
#include "properties/gen/materialize.hpp"
#include "properties/rc_driver.hpp"

namespace qgate {
namespace {

struct MoeSpec {
  int64_t experts = 2, top_k = 1, m = 1, n = 1, k = 32;
  Routing routing = Routing::random;
  ScaleMode scales = ScaleMode::normal;  // the experts' scale class (special_scales's classes)
  uint64_t seed = 0;
  std::string str() const {
    return "experts=" + std::to_string(experts) + ",top_k=" + std::to_string(top_k) + ",m=" + std::to_string(m) +
           ",n=" + std::to_string(n) + ",k=" + std::to_string(k) + ",routing=" + name(routing) +
           ",scales=" + name(scales) + ",seed=" + std::to_string(seed);
  }
};

// Drawn inside a RapidCheck property (shrinks toward the first element of each list, the
// smaller shape, the plan's first routing and scale class): the plan's ragged shapes are M/N/K
// around the kernel's tile, its plain shapes decode and prefill M.
MoeSpec gen(const KernelInfo& k, const PropertyInfo& p) {
  MoeSpec s;
  const int64_t unit = std::lcm<int64_t>(format_info(k.format).block_elems, act_block(k.prec.act));
  const bool ragged = p.plan.shapes == Shapes::ragged;
  s.experts = *rc::gen::element<int64_t>(2, 3, 4, 8);
  s.top_k = std::min<int64_t>(s.experts, *rc::gen::element<int64_t>(1, 2, 4));
  const int64_t tm = k.max_m > 0 ? k.max_m : k.tile.m, tn = k.tile.n;
  if (ragged) {
    s.m = *rc::gen::element<int64_t>(1, tm - 1, tm, tm + 1, 2 * tm + 1);
    s.n = *rc::gen::element<int64_t>(1, tn - 1, tn, tn + 1, 7);
    s.k = unit * *rc::gen::element<int64_t>(1, 2, 3, 5, 7);
  } else {
    s.m = *rc::gen::element<int64_t>(1, 2, 3, 5, 8, 17, 40);
    s.n = *rc::gen::element<int64_t>(1, 2, 5, 16, 33);
    s.k = unit * *rc::gen::element<int64_t>(1, 2, 3);
  }
  s.routing = draw_from(p.plan.routing, Routing::random);
  s.scales = draw_from(p.plan.scales, ScaleMode::normal);
  s.seed = *rc::gen::inRange<uint64_t>(0, 1ull << 32);
  if (k.max_m > 0) s.m = std::min<int64_t>(std::max<int64_t>(s.m, 1), k.max_m);
  s.m = std::max<int64_t>(s.m, 1);
  s.n = std::max<int64_t>(s.n, 1);
  return s;
}

// Distinct experts per token (as a top-k router gives them), in one of four patterns.
std::vector<int32_t> route(const MoeSpec& s) {
  Rng r(s.seed ^ 0xA5A5A5A5ull);
  std::vector<int32_t> ids(static_cast<size_t>(s.m * s.top_k));
  std::vector<int32_t> perm(static_cast<size_t>(s.experts));
  for (int64_t t = 0; t < s.m; ++t) {
    std::iota(perm.begin(), perm.end(), 0);
    if (s.routing == Routing::one_expert) {  // every token the same experts, starting from the last
      for (int64_t j = 0; j < s.experts; ++j) perm[static_cast<size_t>(j)] = static_cast<int32_t>((s.experts - 1 + j) % s.experts);
    } else if (s.routing == Routing::reversed) {  // experts in descending order
      std::reverse(perm.begin(), perm.end());
    } else {  // shuffled; skewed: expert 0 first for two tokens in three
      for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[r.below(static_cast<uint32_t>(i))]);
      if (s.routing == Routing::skewed && t % 3 != 2) std::swap(perm[0], *std::find(perm.begin(), perm.end(), 0));
    }
    std::copy(perm.begin(), perm.begin() + s.top_k, ids.begin() + t * s.top_k);
  }
  return ids;
}

struct Outcome {
  bool pass = true;
  std::string failure;
  Verdict verdict;
};

Outcome run_one(const KernelInfo& k, const MoeSpec& s, bool twice) {
  Outcome o;
  CaseSpec cs;
  cs.m = s.m;
  cs.n = s.experts * s.n;
  cs.k = s.k;
  cs.seed = s.seed;
  cs.scales = s.scales;
  Case c;
  if (std::string e = materialize(format_info(k.format), cs, true, c); !e.empty()) {
    o.pass = false;
    o.failure = "generator: " + e;
    return o;
  }
  const std::vector<int32_t> ids = route(s);
  Reference ref;
  if (DecodeError e = moe_matmul_ref(c.w, s.experts, c.x.data(), s.m, ids.data(), s.top_k, k.prec, ref)) {
    o.pass = false;
    o.failure = "oracle rejected the case: " + e.message;
    return o;
  }
  GuardedBuffer out(ref.rows * ref.cols, k.prec.out);
  if (const char* e = k.launch(k, LaunchArgs::moe(c.w, s.experts, c.x.data(), s.m, ids.data(), s.top_k, out))) {
    o.pass = false;
    o.failure = std::string("FAIL kernel error: ") + e;
    return o;
  }
  o.verdict = judge(ref, out.data(), out.before(), out.redzone(), out.after(), out.redzone());
  if (twice) {
    GuardedBuffer again(ref.rows * ref.cols, k.prec.out);
    if (const char* e = k.launch(k, LaunchArgs::moe(c.w, s.experts, c.x.data(), s.m, ids.data(), s.top_k, again))) {
      o.pass = false;
      o.failure = std::string("FAIL kernel error (second run): ") + e;
      return o;
    }
    o.verdict.determinism_checked = true;
    o.verdict.deterministic = std::equal(out.data(), out.data() + out.bytes(), again.data());
  }
  o.pass = o.verdict.pass();
  if (!o.pass) o.failure = o.verdict.summary();
  return o;
}

}  // namespace

PropertyRun run_moe_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt) {
  PropertyRun r;
  r.seed = opt.seed ? opt.seed : default_seed();
  if (!k.launch) {
    r.pass = false;
    r.failure = k.name + " is an moe_matmul kernel without a launch";
    return r;
  }
  const bool twice = p.plan.rerun && k.deterministic;
  const auto failed = sample_cases<MoeSpec>(k, p, r, [&] { return gen(k, p); }, [&](const MoeSpec& s) {
    const Outcome o = run_one(k, s, twice);
    return Sample{o.pass, false, !o.verdict.vacuous(), o.verdict.max_ratio, o.failure};
  });
  if (failed) {
    r.failure += " (case " + failed->str() + ")";
    r.repro = "qgate gate --kernel " + k.name + " --property " + std::string(p.name) + " --seed " + std::to_string(r.seed) +
              repro_mutant_suffix() + "   # shrunk case: " + failed->str();
  }
  return r;
}

}  // namespace qgate
