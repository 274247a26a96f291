#include "properties/plan.hpp"

#include <sstream>

namespace qgate {
namespace {

std::string trim(std::string s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

template <class E>
bool alternatives(const std::string& key, const std::string& list, std::vector<E>& out, std::string& err) {
  out.clear();
  std::stringstream ss(list);
  std::string alt;
  while (std::getline(ss, alt, '|')) {
    E e{};
    if (!from_name(trim(alt), e)) {
      err = "'" + trim(alt) + "' is not a " + key + " value";
      return false;
    }
    out.push_back(e);
  }
  if (out.empty()) err = key + "= names no alternative";
  return !out.empty();
}

template <class E, size_t N>
bool one_of(const char* const (&names)[N], const std::string& key, const std::string& v, E& out, std::string& err) {
  for (size_t i = 0; i < N; ++i)
    if (v == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  err = "'" + v + "' is not a " + key + " value";
  return false;
}

const char* const kDrivers[] = {"sampled", "session", "every_code", "scale_patterns"};
const char* const kShapes[] = {"plain", "ragged", "many_rows", "long_kv"};

}  // namespace

bool parse_plan(std::string_view text, Plan& out, std::string& err) {
  Plan p;
  std::stringstream ss{std::string(text)};
  std::string item;
  while (std::getline(ss, item, ';')) {
    item = trim(item);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = trim(item.substr(0, eq)), v = eq == std::string::npos ? "" : trim(item.substr(eq + 1));
    bool ok = true;
    if (eq == std::string::npos) {
      if (key == "rerun") p.rerun = true;
      else if (key == "vacuous_ok") p.vacuous_ok = true;
      else ok = false, err = "unknown flag '" + key + "'";
    } else if (key == "driver") ok = one_of(kDrivers, key, v, p.driver, err);
    else if (key == "shapes") ok = one_of(kShapes, key, v, p.shapes, err);
    else if (key == "codes") ok = alternatives(key, v, p.codes, err);
    else if (key == "scales") ok = alternatives(key, v, p.scales, err);
    else if (key == "act") ok = alternatives(key, v, p.act, err);
    else if (key == "values") ok = alternatives(key, v, p.values, err);
    else if (key == "routing") ok = alternatives(key, v, p.routing, err);
    else ok = false, err = "unknown key '" + key + "'";
    if (!ok) return false;
  }
  out = std::move(p);
  return true;
}

}  // namespace qgate
