#include "properties/fused_case.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <numeric>

#include "core/guarded.hpp"
#include "oracles/ops/attention.hpp"
#include "oracles/ops/fusion.hpp"
#include "properties/gen/materialize.hpp"
#include "properties/rc_driver.hpp"

namespace qgate {

std::string to_string(const FusedSpec& s) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "op=%s,values=%s,rows=%lld,n=%lld,top_k=%lld,tokens=%lld,n_head=%lld,n_head_kv=%lld,d=%lld,kv_len=%lld,"
                "kv_cap=%lld,rope=%s,eps=%.9g,base=%.9g,scale=%.9g,seed=0x%llx",
                std::string(op_name(s.op)).c_str(), name(s.values), static_cast<long long>(s.rows),
                static_cast<long long>(s.n), static_cast<long long>(s.top_k), static_cast<long long>(s.tokens),
                static_cast<long long>(s.n_head), static_cast<long long>(s.n_head_kv), static_cast<long long>(s.d),
                static_cast<long long>(s.kv_len), static_cast<long long>(s.kv_cap), s.neox ? "neox" : "interleaved",
                static_cast<double>(s.eps), static_cast<double>(s.rope_base), static_cast<double>(s.scale),
                static_cast<unsigned long long>(s.seed));
  return buf;
}

bool parse_fused_spec(const std::string& text, FusedSpec& out, std::string& err) {
  FusedSpec s;
  bool have_op = false;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    at = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return err = "expected key=value, got '" + item + "'", false;
    const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
    char* end = nullptr;
    bool ok = !v.empty();
    auto int_field = [&](int64_t& f) {
      const long long x = std::strtoll(v.c_str(), &end, 0);
      ok = ok && !*end && x >= 0 && x <= (1 << 20);
      f = x;
    };
    auto float_field = [&](float& f) {
      f = std::strtof(v.c_str(), &end);
      ok = ok && !*end && std::isfinite(f);
    };
    if (key == "op") {
      ok = false;
      for (Op o : kFusedOps)
        if (op_name(o) == v) s.op = o, ok = have_op = true;
    } else if (key == "values") {
      ok = from_name(v, s.values);
    } else if (key == "rows") int_field(s.rows);
    else if (key == "n") int_field(s.n);
    else if (key == "top_k") int_field(s.top_k);
    else if (key == "tokens") int_field(s.tokens);
    else if (key == "n_head") int_field(s.n_head);
    else if (key == "n_head_kv") int_field(s.n_head_kv);
    else if (key == "d") int_field(s.d);
    else if (key == "kv_len") int_field(s.kv_len);
    else if (key == "kv_cap") int_field(s.kv_cap);
    else if (key == "rope") ok = (v == "neox" || v == "interleaved") && ((s.neox = v == "neox"), true);
    else if (key == "eps") float_field(s.eps);
    else if (key == "base") float_field(s.rope_base);
    else if (key == "scale") float_field(s.scale);
    else if (key == "seed") {
      s.seed = std::strtoull(v.c_str(), &end, 0);
      ok = ok && !*end;
    } else return err = "unknown key '" + key + "'", false;
    if (!ok) return err = "bad value for '" + key + "': '" + v + "'", false;
  }
  if (!have_op) return err = "no op= (a fused case names its op)", false;
  // The shapes each op needs: refused here, not as a crash in the kernel.
  const auto bad = [&](const char* why) { return err = std::string("impossible ") + op_name(s.op).data() + " case: " + why, false; };
  switch (s.op) {
    case Op::add_rmsnorm:
    case Op::silu_mul:
      if (s.rows < 1 || s.n < 1 || s.rows * s.n > (1 << 22)) return bad("rows, n >= 1 and rows*n <= 2^22");
      if (s.op == Op::add_rmsnorm && !(s.eps > 0)) return bad("eps > 0");
      break;
    case Op::moe_route:
      if (s.rows < 1 || s.n < 1 || s.top_k < 1 || s.top_k > s.n) return bad("rows, n >= 1 and 1 <= top_k <= n");
      break;
    case Op::qk_norm_rope:
    case Op::attention:
      if (s.tokens < 1 || s.n_head_kv < 1 || s.n_head < s.n_head_kv || s.n_head % s.n_head_kv || s.d < 1)
        return bad("tokens, d >= 1, n_head a multiple of n_head_kv >= 1");
      if (s.op == Op::qk_norm_rope && (s.d % 2 || s.kv_cap < s.tokens || !(s.eps > 0)))
        return bad("even d, kv_cap >= tokens (distinct positions), eps > 0");
      if (s.op == Op::attention && (s.kv_len < s.tokens || s.kv_cap < s.kv_len))
        return bad("tokens <= kv_len <= kv_cap");
      break;
    default: break;
  }
  out = s;
  return true;
}

namespace {

float uni(Rng& r, double lo, double hi) { return static_cast<float>(lo + (hi - lo) * r.uniform()); }
void fill(std::vector<float>& v, size_t n, Rng& r, double lo, double hi) {
  v.resize(n);
  for (float& x : v) x = uni(r, lo, hi);
}

}  // namespace

FusedCase materialize_fused(const FusedSpec& s) {
  FusedCase c;
  c.spec = s;
  Rng r(s.seed);
  switch (s.op) {
    case Op::add_rmsnorm: {
      const size_t n = static_cast<size_t>(s.rows * s.n);
      fill(c.x, n, r, -2, 2);
      fill(c.res, n, r, -2, 2);
      fill(c.w, static_cast<size_t>(s.n), r, 0.25, 2);
      for (float& w : c.w) w = r.below(8) == 0 ? -w : w;
      if (s.values == ValueMode::tiny) {
        // Row r: |h| ~ sqrt(eps) * 10^(r mod 3 - 1); the last row of several is exactly zero.
        for (int64_t row = 0; row < s.rows; ++row) {
          const double f = std::sqrt(static_cast<double>(s.eps)) * std::pow(10.0, static_cast<double>(row % 3) - 1) / 2;
          const bool zero = s.rows > 2 && row == s.rows - 1;
          for (int64_t i = 0; i < s.n; ++i) {
            c.x[row * s.n + i] = zero ? 0.0f : static_cast<float>(c.x[row * s.n + i] * f);
            c.res[row * s.n + i] = zero ? 0.0f : static_cast<float>(c.res[row * s.n + i] * f);
          }
        }
      }
      break;
    }
    case Op::silu_mul: {
      const size_t n = static_cast<size_t>(s.rows * s.n);
      fill(c.x, n, r, -12, 12);
      fill(c.res, n, r, -3, 3);
      if (s.values == ValueMode::extremes) {
        static const float edge[] = {-100.0f, -88.8f, -88.7f, -87.0f, 0.0f, -0.0f, 1e-30f, -1e-30f, 30.0f, 90.0f, 1e-8f};
        for (size_t i = 0; i < n; i += 2) c.x[i] = edge[r.below(std::size(edge))];
      }
      break;
    }
    case Op::moe_route: {
      const size_t n = static_cast<size_t>(s.rows * s.n);
      const double spread = 1 + 4 * r.uniform();
      fill(c.x, n, r, -spread, spread);
      if (s.values == ValueMode::ties) {
        static const float level[] = {-1.0f, 0.0f, 0.5f, 0.5f, 2.0f, 2.0f, 2.0f};
        for (size_t i = 0; i < n; ++i) {
          const float l = level[r.below(std::size(level))];
          // a third of them one ulp away: different logits, probabilities within the bound
          c.x[i] = r.below(3) == 0 ? std::nextafter(l, r.below(2) ? 10.0f : -10.0f) : l;
        }
      }
      break;
    }
    case Op::qk_norm_rope: {
      fill(c.q, static_cast<size_t>(s.tokens * s.n_head * s.d), r, -2, 2);
      fill(c.k, static_cast<size_t>(s.tokens * s.n_head_kv * s.d), r, -2, 2);
      fill(c.v, c.k.size(), r, -2, 2);
      fill(c.w_q, static_cast<size_t>(s.d), r, 0.5, 1.5);
      fill(c.w_k, static_cast<size_t>(s.d), r, 0.5, 1.5);
      // Distinct positions from the cache, in a shuffled (not increasing) order.
      std::vector<int32_t> all(static_cast<size_t>(s.kv_cap));
      std::iota(all.begin(), all.end(), 0);
      for (size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[r.below(static_cast<uint32_t>(i))]);
      c.pos.assign(all.begin(), all.begin() + s.tokens);
      break;
    }
    case Op::attention: {
      fill(c.q, static_cast<size_t>(s.tokens * s.n_head * s.d), r, -1, 1);
      fill(c.k, static_cast<size_t>(s.n_head_kv * s.kv_cap * s.d), r, -1, 1);
      fill(c.v, c.k.size(), r, -1, 1);
      if (s.values == ValueMode::rising) {
        // q[0] > 0 and k_j[0] growing with j: the running max moves up in every tile.
        for (int64_t t = 0; t < s.tokens * s.n_head; ++t) c.q[t * s.d] = uni(r, 0.5, 1);
        for (int64_t h = 0; h < s.n_head_kv; ++h)
          for (int64_t j = 0; j < s.kv_cap; ++j)
            c.k[(h * s.kv_cap + j) * s.d] = static_cast<float>(3.0 * static_cast<double>(j) / static_cast<double>(s.kv_cap)) + uni(r, -0.2, 0.2);
      }
      break;
    }
    default: break;
  }
  return c;
}

FusedSpec gen_fused_spec(const KernelInfo& k, const PropertyInfo& p) {
  FusedSpec s;
  s.op = k.op;
  s.seed = *rc::gen::inRange<uint64_t>(0, 1ull << 32);
  s.values = draw_from(p.plan.values, ValueMode::normal);
  switch (k.op) {
    case Op::add_rmsnorm:
      s.rows = *rc::gen::element<int64_t>(1, 2, 3, 5);
      s.n = *rc::gen::element<int64_t>(1, 7, 8, 9, 17, 64, 100, 256);  // around the 8 lanes
      s.eps = *rc::gen::element(1e-5f, 1e-6f);
      break;
    case Op::silu_mul:
      s.rows = *rc::gen::element<int64_t>(1, 2, 3);
      s.n = *rc::gen::element<int64_t>(1, 5, 16, 33, 128);
      break;
    case Op::moe_route:
      s.rows = *rc::gen::element<int64_t>(1, 2, 3, 7);
      s.n = *rc::gen::element<int64_t>(2, 4, 8, 16, 60, 64, 128);
      s.top_k = std::min(s.n, *rc::gen::element<int64_t>(1, 2, 4, 8));
      break;
    case Op::qk_norm_rope:
      s.tokens = *rc::gen::element<int64_t>(1, 2, 3, 5);
      s.n_head_kv = *rc::gen::element<int64_t>(1, 2);
      s.n_head = s.n_head_kv * *rc::gen::element<int64_t>(1, 2, 4);
      s.d = *rc::gen::element<int64_t>(2, 6, 8, 16, 34, 64, 128);
      s.kv_cap = s.tokens + *rc::gen::element<int64_t>(0, 3, 60, 500);
      s.neox = *rc::gen::arbitrary<bool>();
      s.rope_base = *rc::gen::element(10000.0f, 1000000.0f, 500000.0f);
      s.eps = *rc::gen::element(1e-6f, 1e-5f);
      break;
    case Op::attention: {
      const int64_t tile = k.tile.k > 1 ? k.tile.k : 32;  // eager kernels see the same sequences
      const bool longkv = p.plan.shapes == Shapes::long_kv;  // several tiles of keys
      s.tokens = longkv ? *rc::gen::element<int64_t>(1, 4) : *rc::gen::element<int64_t>(1, 2, 3, 7);
      s.n_head_kv = *rc::gen::element<int64_t>(1, 2);
      s.n_head = s.n_head_kv * *rc::gen::element<int64_t>(1, 2, 4);
      s.d = longkv ? *rc::gen::element<int64_t>(8, 33, 64) : *rc::gen::element<int64_t>(1, 8, 15, 32, 40, 64, 80);
      s.kv_len = longkv ? *rc::gen::element<int64_t>(2 * tile + 1, 3 * tile + 7, 5 * tile)
                        : std::max(s.tokens, *rc::gen::element<int64_t>(1, tile - 1, tile, tile + 1, 2 * tile + 3));
      s.kv_cap = s.kv_len + *rc::gen::element<int64_t>(0, 1, 5);
      s.scale = static_cast<float>(1 / std::sqrt(static_cast<double>(s.d)) * (s.values == ValueMode::peaked ? 12 : 1));
      break;
    }
    default: break;
  }
  return s;
}

namespace {

void merge(Verdict& into, const Verdict& v) {
  if (into.nbad == 0 && v.nbad > 0) into.first_bad = v.first_bad;
  into.elements += v.elements;
  into.nbad += v.nbad;
  into.nonfinite += v.nonfinite;
  into.poison_left += v.poison_left;
  into.redzone_damaged += v.redzone_damaged;
  into.nonzero_want += v.nonzero_want;
  into.max_ratio = std::max(into.max_ratio, v.max_ratio);
  into.max_abs_err = std::max(into.max_abs_err, v.max_abs_err);
  into.tie_elements += v.tie_elements;
}

Verdict judge_buf(const Reference& ref, const GuardedBuffer& b) {
  return judge(ref, b.data(), b.before(), b.redzone(), b.after(), b.redzone());
}

float* f32(GuardedBuffer& b) { return reinterpret_cast<float*>(b.data()); }

}  // namespace

CaseOutcome run_fused_case(const KernelInfo& k, const FusedCase& c, std::string* detail, FusedPrimary* primary) {
  const auto keep = [&](const Reference& ref, GuardedBuffer& out) {
    if (primary) primary->ref = ref, primary->out.emplace(std::move(out));
  };
  std::string sink;
  std::string& note = detail ? *detail : sink;
  CaseOutcome o;
  const FusedSpec& s = c.spec;
  FusedArgs a;
  a.op = k.op;
  auto oracle_error = [&](const DecodeError& e) {
    o.kind = CaseOutcome::Kind::oracle_error;
    o.message = e.message;
    return o;
  };
  switch (k.op) {
    case Op::add_rmsnorm: {
      Reference h, y;
      if (auto e = add_rmsnorm_ref(c.x.data(), c.res.data(), c.w.data(), s.rows, s.n, s.eps,
                                   k.prec.depth(s.n), h, y, k.math))
        return oracle_error(e);
      GuardedBuffer by(s.rows * s.n, OutType::f32), bh(s.rows * s.n, OutType::f32);
      a.rows = s.rows, a.n = s.n, a.x = c.x.data(), a.res = c.res.data(), a.w = c.w.data(), a.eps = s.eps;
      a.out0 = f32(by), a.out1 = f32(bh), a.red_out0 = by.redzone(), a.red_out1 = bh.redzone();
      if (const char* e = k.launch(k, LaunchArgs::of(a))) return o.message = e, o;
      o.verdict = judge_buf(y, by);
      merge(o.verdict, judge_buf(h, bh));
      keep(y, by);
      return o;
    }
    case Op::silu_mul: {
      Reference y;
      if (auto e = silu_mul_ref(c.x.data(), c.res.data(), s.rows, s.n, y, k.math)) return oracle_error(e);
      GuardedBuffer by(s.rows * s.n, OutType::f32);
      a.rows = s.rows, a.n = s.n, a.x = c.x.data(), a.res = c.res.data(), a.out0 = f32(by), a.red_out0 = by.redzone();
      if (const char* e = k.launch(k, LaunchArgs::of(a))) return o.message = e, o;
      o.verdict = judge_buf(y, by);
      keep(y, by);
      return o;
    }
    case Op::moe_route: {
      RouteRef ref;
      if (auto e = moe_route_ref(c.x.data(), s.rows, s.n, s.top_k, ref, k.math)) return oracle_error(e);
      GuardedBuffer bw(s.rows * s.top_k, OutType::f32), bi(s.rows * s.top_k, OutType::f32);
      a.rows = s.rows, a.n = s.n, a.top_k = s.top_k, a.x = c.x.data();
      a.out0 = f32(bw), a.ids = reinterpret_cast<int32_t*>(bi.data());
      a.red_out0 = bw.redzone(), a.red_ids = bi.redzone();
      if (const char* e = k.launch(k, LaunchArgs::of(a))) return o.message = e, o;
      // Unwritten ids still hold the poison bits (an out-of-range id): the judge rejects them.
      Reference wref;
      int64_t bad_rows = 0, ties = 0;
      std::string why;
      moe_route_judge(ref, a.ids, wref, bad_rows, ties, why);
      o.verdict = judge_buf(wref, bw);
      if (ties) note = std::to_string(ties) + " router rows admitted through a near-tie";
      o.verdict.nbad += bad_rows;
      o.verdict.elements += s.rows * s.top_k;
      o.verdict.nonzero_want += s.rows * s.top_k;
      o.verdict.redzone_damaged += static_cast<int64_t>(
          std::count_if(bi.before(), bi.before() + bi.redzone(), [](uint8_t b) { return b != kRedzoneByte; }) +
          std::count_if(bi.after(), bi.after() + bi.redzone(), [](uint8_t b) { return b != kRedzoneByte; }));
      if (bad_rows) note = "router ids: " + std::to_string(bad_rows) + " rows inadmissible, first " + why;
      keep(wref, bw);
      return o;
    }
    case Op::qk_norm_rope: {
      QkRopeRef ref;
      if (auto e = qk_norm_rope_ref(c.q.data(), c.k.data(), c.v.data(), c.w_q.data(), c.w_k.data(), c.pos.data(), s.tokens,
                                    s.n_head, s.n_head_kv, s.d, s.eps, s.rope_base, s.neox,
                                    k.prec.depth(s.d), ref, k.math))
        return oracle_error(e);
      const int64_t cache = s.n_head_kv * s.kv_cap * s.d;
      GuardedBuffer bq(s.tokens * s.n_head * s.d, OutType::f32), bk(cache, OutType::f32), bv(cache, OutType::f32);
      a.tokens = s.tokens, a.n_head = s.n_head, a.n_head_kv = s.n_head_kv, a.d = s.d, a.kv_cap = s.kv_cap;
      a.q = c.q.data(), a.k = c.k.data(), a.v = c.v.data(), a.w_q = c.w_q.data(), a.w_k = c.w_k.data();
      a.pos = c.pos.data(), a.eps = s.eps, a.rope_base = s.rope_base;
      a.rope_mode = s.neox ? RopeMode::neox : RopeMode::interleaved;
      a.out0 = f32(bq), a.k_cache = f32(bk), a.v_cache = f32(bv);
      a.red_out0 = bq.redzone(), a.red_k = bk.redzone(), a.red_v = bv.redzone();
      if (const char* e = k.launch(k, LaunchArgs::of(a))) return o.message = e, o;
      o.verdict = judge_buf(ref.q, bq);
      // The cache rows at pos[t] are judged; every other row must still hold the poison.
      std::vector<char> written(static_cast<size_t>(s.kv_cap));
      for (int32_t p : c.pos) written[p] = 1;
      int64_t clobbered = 0;
      for (GuardedBuffer* b : {&bk, &bv}) {
        const Reference& ref_rows = b == &bk ? ref.k : ref.v;
        std::vector<float> rows(static_cast<size_t>(ref_rows.rows * s.d));
        for (int64_t t = 0; t < s.tokens; ++t)
          for (int64_t h = 0; h < s.n_head_kv; ++h)
            std::memcpy(&rows[(t * s.n_head_kv + h) * s.d], f32(*b) + (h * s.kv_cap + c.pos[t]) * s.d, 4 * s.d);
        Verdict v = judge(ref_rows, rows.data(), b->before(), b->redzone(), b->after(), b->redzone());
        merge(o.verdict, v);
        for (int64_t h = 0; h < s.n_head_kv; ++h)
          for (int64_t j = 0; j < s.kv_cap; ++j)
            if (!written[j])
              for (int64_t i = 0; i < s.d; ++i) clobbered += !is_poison(b->data(), (h * s.kv_cap + j) * s.d + i, OutType::f32);
      }
      if (clobbered) {
        o.verdict.redzone_damaged += 4 * clobbered;
        note = std::to_string(clobbered) + " cache elements outside the rows at pos[] were written";
      }
      keep(ref.q, bq);
      return o;
    }
    case Op::attention: {
      Reference ref;
      AttentionShape sh{s.tokens, s.n_head, s.n_head_kv, s.d, s.kv_len, s.kv_cap, static_cast<double>(s.scale)};
      AttentionPrecision pr{k.prec.depth(s.d), k.tile.k > 1 ? k.tile.k : 0, k.p_type, k.math};
      if (auto e = attention_ref(c.q.data(), c.k.data(), c.v.data(), sh, pr, ref)) return oracle_error(e);
      GuardedBuffer bo(s.tokens * s.n_head * s.d, OutType::f32);
      a.tokens = s.tokens, a.n_head = s.n_head, a.n_head_kv = s.n_head_kv, a.d = s.d, a.kv_len = s.kv_len;
      a.kv_cap = s.kv_cap, a.q = c.q.data(), a.scale = s.scale;
      a.k_cache = const_cast<float*>(c.k.data()), a.v_cache = const_cast<float*>(c.v.data());
      a.out0 = f32(bo), a.red_out0 = bo.redzone();
      if (const char* e = k.launch(k, LaunchArgs::of(a))) return o.message = e, o;
      o.verdict = judge_buf(ref, bo);
      keep(ref, bo);
      return o;
    }
    default:
      o.kind = CaseOutcome::Kind::oracle_error;
      o.message = "not a fused op";
      return o;
  }
}

}  // namespace qgate
