#include "properties/gen/case_spec.hpp"

#include <cstdio>
#include <cstring>
#include <sstream>

namespace qgate {
namespace {
const char* const kCode[] = {"random", "uniform", "n_only", "k_only", "both", "one_hot", "diagonal"};
const char* const kScale[] = {"normal", "subnormal", "largest", "zero", "negative", "sub_extreme", "smallest_normal", "mixed"};
const char* const kAct[] = {"normal", "outliers", "all_equal", "zero_rows"};
const char* const kValues[] = {"normal", "tiny", "ties", "extremes", "peaked", "rising"};
const char* const kRouting[] = {"random", "one_expert", "reversed", "skewed"};

template <class E, size_t N>
bool lookup(const char* const (&names)[N], const std::string& v, E& out) {
  for (size_t i = 0; i < N; ++i)
    if (v == names[i]) { out = static_cast<E>(i); return true; }
  return false;
}
bool to_int(const std::string& v, int64_t& out) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 0);
  if (v.empty() || *end) return false;
  out = x;
  return true;
}
}  // namespace

const char* name(CodeMode c) { return kCode[static_cast<int>(c)]; }
const char* name(ScaleMode s) { return kScale[static_cast<int>(s)]; }
const char* name(ActMode a) { return kAct[static_cast<int>(a)]; }
const char* name(ValueMode v) { return kValues[static_cast<int>(v)]; }
const char* name(Routing r) { return kRouting[static_cast<int>(r)]; }
bool from_name(const std::string& text, CodeMode& out) { return lookup(kCode, text, out); }
bool from_name(const std::string& text, ScaleMode& out) { return lookup(kScale, text, out); }
bool from_name(const std::string& text, ActMode& out) { return lookup(kAct, text, out); }
bool from_name(const std::string& text, ValueMode& out) { return lookup(kValues, text, out); }
bool from_name(const std::string& text, Routing& out) { return lookup(kRouting, text, out); }

std::string to_string(const CaseSpec& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "m=%lld,n=%lld,k=%lld,codes=%s,scales=%s,act=%s,seed=0x%llx,group=%d,sym=%d,gidx=%d",
                static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), name(s.codes),
                name(s.scales), name(s.act), static_cast<unsigned long long>(s.seed), s.group, s.sym ? 1 : 0,
                s.gidx ? 1 : 0);
  return buf;
}

bool parse_spec(const std::string& text, CaseSpec& out, std::string& err) {
  CaseSpec s;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) { err = "expected key=value, got '" + item + "'"; return false; }
    const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
    int64_t x = 0;
    bool ok = true;
    if (key == "m") ok = to_int(v, s.m);
    else if (key == "n") ok = to_int(v, s.n);
    else if (key == "k") ok = to_int(v, s.k);
    else if (key == "codes") ok = lookup(kCode, v, s.codes);
    else if (key == "scales") ok = lookup(kScale, v, s.scales);
    else if (key == "act") ok = lookup(kAct, v, s.act);
    else if (key == "seed") { ok = !v.empty(); s.seed = std::strtoull(v.c_str(), nullptr, 0); }
    else if (key == "group") { ok = to_int(v, x); s.group = static_cast<int>(x); }
    else if (key == "sym") { ok = to_int(v, x); s.sym = x != 0; }
    else if (key == "gidx") { ok = to_int(v, x); s.gidx = x != 0; }
    else { err = "unknown key '" + key + "'"; return false; }
    if (!ok) { err = "bad value for '" + key + "': '" + v + "'"; return false; }
  }
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > 4096 || s.n > 65536 || s.k > 65536) {
    err = "impossible shape m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k);
    return false;
  }
  if (s.group < 1) { err = "group must be >= 1"; return false; }
  out = s;
  return true;
}

}  // namespace qgate
