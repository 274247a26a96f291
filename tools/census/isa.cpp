// The ISA census over llvm-objdump -d output, function by function, in address order.
//  full_waits: between two consecutive vector-memory loads, a wait for ALL outstanding loads
//    (s_waitcnt vmcnt(0); gfx10/11 s_waitcnt_vmcnt null, 0; gfx12 s_wait_loadcnt 0 or
//    s_wait_loadcnt_dscnt with load count 0). Such a wait serialises the second load behind
//    the first: the pattern a bounds predicate around each staged load produces.
//  addr64: a v_add_co (or v_sub_co) that writes vN and sets a carry, joined by a v_addc /
//    v_add_co_ci (v_subb / v_sub_co_ci) that writes vN+1 and consumes that carry, where
//    v[N:N+1] is then the 64-bit address of a load before either half is rewritten. Counted
//    once per pair: per-lane 64-bit address arithmetic a scalar base + 32-bit offset avoids.
//  exec_branches: s_cbranch_execz / s_cbranch_execnz; saveexec: s_*_saveexec_*.
// Linear address order is the census' model: a wait on the back edge of a loop is not seen
// between the last load of one iteration and the first of the next.
#include <cstdlib>
#include <optional>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_operands(std::string_view ops) {
  std::vector<std::string_view> v;
  while (!ops.empty()) {
    const size_t c = ops.find(',');
    v.push_back(trim(ops.substr(0, c)));
    if (c == std::string_view::npos) break;
    ops.remove_prefix(c + 1);
  }
  return v;
}

// "v7" -> {7, 1}; "v[4:5]" -> {4, 2}; anything else: nullopt.
struct VRange {
  int first, count;
};
std::optional<VRange> vreg(std::string_view s) {
  if (s.size() < 2 || s[0] != 'v') return std::nullopt;
  if (s[1] == '[') {
    const size_t colon = s.find(':'), close = s.find(']');
    if (colon == std::string_view::npos || close == std::string_view::npos || close < colon) return std::nullopt;
    const int a = std::atoi(std::string(s.substr(2, colon - 2)).c_str());
    const int b = std::atoi(std::string(s.substr(colon + 1, close - colon - 1)).c_str());
    if (b < a) return std::nullopt;
    return VRange{a, b - a + 1};
  }
  for (size_t i = 1; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  return VRange{std::atoi(std::string(s.substr(1)).c_str()), 1};
}

long imm(std::string_view s) {
  std::string t(trim(s));
  return std::strtol(t.c_str(), nullptr, 0);
}

bool is_lo_carry_op(std::string_view m) {
  return starts(m, "v_add_co_u32") || starts(m, "v_sub_co_u32") || starts(m, "v_subrev_co_u32");
}
bool is_hi_carry_op(std::string_view m) {
  return starts(m, "v_addc_co_u32") || starts(m, "v_add_co_ci_u32") || starts(m, "v_subb_co_u32") ||
         starts(m, "v_subbrev_co_u32") || starts(m, "v_sub_co_ci_u32") || starts(m, "v_subrev_co_ci_u32");
}
// Instructions whose first operand is not a register they write.
bool first_operand_is_def(std::string_view m) {
  return !(starts(m, "s_") || starts(m, "global_store") || starts(m, "buffer_store") || starts(m, "flat_store") ||
           starts(m, "scratch_store") || starts(m, "ds_write") || starts(m, "ds_store") || starts(m, "exp ") ||
           m == "exp");
}

struct FunctionState {
  IsaCounts c;
  bool seen_load = false, wait_since_load = false;
  // carry-producing low halves: vN -> carry register name
  std::map<int, std::string> lo_carry;
  // completed pairs by low register, not yet used as an address
  std::map<int, bool> pairs;
  void clobber(VRange r) {
    for (int i = r.first; i < r.first + r.count; ++i) {
      lo_carry.erase(i);
      pairs.erase(i);
      pairs.erase(i - 1);
    }
  }
};

void step(FunctionState& f, std::string_view mnem, std::string_view operands) {
  const std::vector<std::string_view> ops = split_operands(operands);
  if (is_vmem_load(mnem)) {
    if (f.seen_load && f.wait_since_load) ++f.c.full_waits;
    f.seen_load = true;
    f.wait_since_load = false;
    ++f.c.loads;
    if (ops.size() >= 2 && !starts(mnem, "buffer_")) {
      if (auto a = vreg(ops[1]); a && a->count == 2) {
        if (auto it = f.pairs.find(a->first); it != f.pairs.end()) {
          ++f.c.addr64;
          f.pairs.erase(it);
        }
      }
    }
  } else if (is_full_load_wait(mnem, operands)) {
    f.wait_since_load = true;
  }
  if (mnem == "s_cbranch_execz" || mnem == "s_cbranch_execnz") ++f.c.exec_branches;
  if (starts(mnem, "s_") && mnem.find("_saveexec_") != std::string_view::npos) ++f.c.saveexec;

  // Register definitions (v_dual_*: two halves joined by "::", each with its own destination).
  std::vector<std::pair<std::string_view, std::string_view>> halves;
  if (const size_t dd = operands.find("::"); dd != std::string_view::npos) {
    halves.push_back({mnem, operands.substr(0, dd)});
    std::string_view rest = trim(operands.substr(dd + 2));
    const size_t sp = rest.find(' ');
    halves.push_back({rest.substr(0, sp), sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1)});
  } else {
    halves.push_back({mnem, operands});
  }
  for (auto [m, o] : halves) {
    if (!first_operand_is_def(m)) continue;
    const std::vector<std::string_view> hops = split_operands(o);
    if (hops.empty()) continue;
    const auto def = vreg(hops[0]);
    if (!def) continue;
    // A carry-linked pair in progress: read before the definition clobbers anything.
    std::optional<int> pair_lo;
    std::string carry_out;
    if (is_hi_carry_op(m) && def->count == 1 && hops.size() >= 2) {
      const int lo = def->first - 1;
      if (auto it = f.lo_carry.find(lo); it != f.lo_carry.end() && it->second == std::string(trim(hops.back())))
        pair_lo = lo;
    }
    if (is_lo_carry_op(m) && def->count == 1 && hops.size() >= 2) carry_out = std::string(hops[1]);
    f.clobber(*def);
    if (pair_lo) {
      f.lo_carry.erase(*pair_lo);
      f.pairs[*pair_lo] = true;
    }
    if (!carry_out.empty() && carry_out != "null") f.lo_carry[def->first] = carry_out;
  }
}

}  // namespace

bool is_vmem_load(std::string_view m) {
  return starts(m, "global_load") || starts(m, "buffer_load") || starts(m, "flat_load");
}

bool is_full_load_wait(std::string_view m, std::string_view operands) {
  operands = trim(operands);
  if (m == "s_waitcnt") {
    if (operands.find("vmcnt(0)") != std::string_view::npos) return true;
    // A bare immediate: 0 waits for every counter.
    return !operands.empty() && operands.find('(') == std::string_view::npos && imm(operands) == 0;
  }
  if (m == "s_waitcnt_vmcnt") {  // gfx10/11: s_waitcnt_vmcnt null, imm
    const auto ops = split_operands(operands);
    return ops.size() == 2 && ops[0] == "null" && imm(ops[1]) == 0;
  }
  if (m == "s_wait_loadcnt") return imm(operands) == 0;                           // gfx12
  if (m == "s_wait_loadcnt_dscnt") return ((imm(operands) >> 8) & 0x3f) == 0;    // gfx12: load count in [13:8]
  return false;
}

std::map<std::string, IsaCounts> parse_disassembly(std::string_view text) {
  std::map<std::string, IsaCounts> out;
  std::string current;
  FunctionState f;
  bool active = false;
  auto flush = [&] {
    if (active) out[current] = f.c;
    f = FunctionState{};
    active = false;
  };
  for (std::string_view line : lines(text)) {
    if (line.empty()) continue;
    if (line[0] != '\t' && line[0] != ' ') {
      // "0000000000008000 <symbol>:" starts a function.
      const size_t lt = line.find(" <"), gt = line.rfind(">:");
      if (lt != std::string_view::npos && gt != std::string_view::npos && gt > lt) {
        flush();
        current = std::string(line.substr(lt + 2, gt - lt - 2));
        active = true;
      }
      continue;
    }
    if (!active) continue;
    std::string_view ins = line;
    if (const size_t cm = ins.find("//"); cm != std::string_view::npos) ins = ins.substr(0, cm);
    ins = trim(ins);
    if (ins.empty() || ins == "...") continue;
    const size_t sp = ins.find(' ');
    const std::string_view mnem = ins.substr(0, sp);
    const std::string_view ops = sp == std::string_view::npos ? std::string_view() : trim(ins.substr(sp + 1));
    step(f, mnem, ops);
  }
  flush();
  return out;
}

}  // namespace qgate::census
