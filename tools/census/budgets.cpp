// Per-kernel budgets (kernels/<backend>/<source>.budget) and the gate over one census row.
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> v;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) v.push_back(s.substr(i, j - i));
    i = j;
  }
  return v;
}

bool glob(const std::string& pattern, const std::string& s) { return fnmatch(pattern.c_str(), s.c_str(), 0) == 0; }

int metric(const Row& r, const std::string& key) {
  auto it = r.m.find(key);
  return it == r.m.end() ? 0 : it->second;
}

}  // namespace

std::string parse_budgets(std::string_view text, const std::string& file, std::vector<BudgetLine>& out) {
  int n = 0;
  for (std::string_view line : lines(text)) {
    ++n;
    if (const size_t h = line.find('#'); h != std::string_view::npos) line = line.substr(0, h);
    const auto w = words(line);
    if (w.empty()) continue;
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (w.size() < 3) return where + "want <kernel-glob> <target-glob> <limit>..., got '" + std::string(line) + "'";
    BudgetLine b{std::string(w[0]), std::string(w[1]), file, n, {}};
    for (size_t i = 2; i < w.size(); ++i) {
      const std::string_view t = w[i];
      const size_t le = t.find("<="), ge = t.find(">=");
      const size_t op = le != std::string_view::npos ? le : ge;
      if (op == std::string_view::npos || op == 0) return where + "limit '" + std::string(t) + "' is not key<=N or key>=N";
      Limit l{std::string(t.substr(0, op)), ge != std::string_view::npos, 0};
      if (std::find(std::begin(kBudgetKeys), std::end(kBudgetKeys), l.key) == std::end(kBudgetKeys)) {
        std::string known;
        for (auto k : kBudgetKeys) known += (known.empty() ? "" : ", ") + std::string(k);
        return where + "unknown key '" + l.key + "' (known: " + known + ")";
      }
      if (l.at_least != (l.key == "waves"))
        return where + "'" + std::string(t) + "': waves is a floor (waves>=N), every other key a ceiling (key<=N)";
      const std::string num(t.substr(op + 2));
      char* end = nullptr;
      const long v = std::strtol(num.c_str(), &end, 10);
      if (num.empty() || *end != '\0' || v < 0) return where + "'" + std::string(t) + "': not a non-negative integer";
      l.value = static_cast<int>(v);
      b.limits.push_back(l);
    }
    out.push_back(std::move(b));
  }
  return "";
}

int check_row(Row& r, const std::vector<BudgetLine>& budgets) {
  const size_t before = r.failures.size();
  const std::string what = r.target + " " + r.kernel;
  r.m["spill"] = metric(r, "vgpr_spill") + metric(r, "sgpr_spill");
  bool matched = false;
  for (const char* k : {"spill", "scratch"}) {
    if (metric(r, k) == 0) continue;
    std::string declared;
    for (const BudgetLine& b : budgets)
      if (glob(b.kernel_glob, r.kernel) && glob(b.target_glob, r.target))
        for (const Limit& l : b.limits)
          if (l.key == k) declared = b.file + ":" + std::to_string(b.line);
    if (declared.empty())
      r.failures.push_back(what + ": " + k + " = " + std::to_string(metric(r, k)) + " (must be 0 unless its budget declares " + k + "<=N)");
    else
      r.waivers.push_back(what + ": " + k + " = " + std::to_string(metric(r, k)) + " declared in " + declared);
  }
  for (const BudgetLine& b : budgets) {
    if (!glob(b.kernel_glob, r.kernel) || !glob(b.target_glob, r.target)) continue;
    matched = true;
    for (const Limit& l : b.limits) {
      const int v = metric(r, l.key);
      if (l.at_least ? v < l.value : v > l.value)
        r.failures.push_back(what + ": " + l.key + " = " + std::to_string(v) + ", budget " + l.key +
                             (l.at_least ? ">=" : "<=") + std::to_string(l.value) + " (" + b.file + ":" +
                             std::to_string(b.line) + ")");
    }
  }
  if (!matched)
    r.failures.push_back(what + ": no budget; add a line to kernels/*/" + r.source + ".budget, e.g.: " + suggest_line(r));
  return static_cast<int>(r.failures.size() - before);
}

std::string suggest_line(const Row& r) {
  std::string s = r.kernel + " " + r.target;
  const int waves = metric(r, "waves");
  // The most registers that keep this occupancy.
  int vgpr = metric(r, "vgpr");
  if (const TargetLimits* t = target_limits(r.target); t && waves > 0) {
    const int file = metric(r, "wave") != t->wave && t->wave == 32 ? t->vgpr_file / 2 : t->vgpr_file;
    const int gran = metric(r, "wave") != t->wave && t->wave == 32 ? t->vgpr_granule / 2 : t->vgpr_granule;
    vgpr = std::max(vgpr, std::min(file / waves / gran * gran - metric(r, "agpr"), t->vgpr_file == 512 ? 512 : 256));
  } else if (r.target == "sm_90") {
    while (vgpr < 255 && sm90_warps_by_regs(vgpr + 1) >= waves) ++vgpr;
  }
  s += " waves>=" + std::to_string(waves) + " vgpr<=" + std::to_string(vgpr);
  for (const char* k : {"lds", "scratch", "spill", "full_waits", "addr64", "exec_branches", "saveexec"}) {
    const std::string_view key(k);
    if (!r.m.count(k) || ((key == "scratch" || key == "spill") && metric(r, k) == 0)) continue;
    s += " " + std::string(k) + "<=" + std::to_string(metric(r, k));
  }
  return s;
}

}  // namespace qgate::census
