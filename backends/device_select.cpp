#include "backends/device_select.hpp"

#include <cstdlib>

namespace qgate {
namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

// "id:N,slots:S[;id:M,slots:T...]" -> N as written; empty when absent or malformed.
std::string allocated_id(const char* value) {
  std::string_view v(value);
  if (v.substr(0, 3) != "id:") return {};
  v.remove_prefix(3);
  return std::string(v.substr(0, v.find_first_of(",;")));
}

bool is_index(const std::string& s, long& idx) {
  if (s.empty()) return false;
  char* end = nullptr;
  idx = std::strtol(s.c_str(), &end, 10);
  return end && *end == '\0';
}

}  // namespace

std::string device_list_text(const std::vector<std::string>& names) {
  std::string t;
  for (size_t i = 0; i < names.size(); ++i) t += (i ? ", " : "") + std::to_string(i) + ": " + names[i];
  return t;
}

int pick_device(std::string_view type, const std::vector<std::string>& names, std::string& why) {
  const int n = static_cast<int>(names.size());
  if (n == 0) {
    why = "no " + std::string(type) + " device";
    return -1;
  }
  const std::string key = upper(type);
  // CTest's allocation, when this process is a test entry run with a resource spec.
  if (const char* count = std::getenv("CTEST_RESOURCE_GROUP_COUNT"); count && *count) {
    const long groups = std::strtol(count, nullptr, 10);
    for (long g = 0; g < groups; ++g) {
      const std::string var = "CTEST_RESOURCE_GROUP_" + std::to_string(g) + "_" + key;
      const char* value = std::getenv(var.c_str());
      if (!value) continue;
      long idx = -1;
      if (const std::string id = allocated_id(value); is_index(id, idx) && idx >= 0 && idx < n)
        return static_cast<int>(idx);
      why = var + "='" + value + "' (ctest's resource allocation) names no " + std::string(type) + " device here (" +
            device_list_text(names) + "); is the resource spec file from this machine?";
      return -1;
    }
  }
  const std::string env = "QGATE_" + key + "_DEVICE";
  const char* want = std::getenv(env.c_str());
  if (!want || !*want) return 0;
  const std::string w(want);
  long idx = -1;
  if (is_index(w, idx)) {
    if (idx >= 0 && idx < n) return static_cast<int>(idx);
  } else {
    for (int d = 0; d < n; ++d)
      if (names[d].find(w) != std::string::npos) return d;
  }
  why = env + "='" + w + "' matches no device (" + device_list_text(names) + ")";
  return -1;
}

}  // namespace qgate
