// Every ctest entry of a GPU backend declares the device it needs through CTest's resource
// allocation, so `ctest --resource-spec-file` never runs two of them on one device at once.
// An entry is a GPU entry when a label names the backend (vulkan, cuda, hip, or
// <area>_<backend>); the code-object census (label census) reads files on the host and needs
// none. Usage: check_resource_groups FILE, FILE = `ctest --show-only=json-v1`. Prints each
// entry without RESOURCE_GROUPS "<backend>:1" and exits 1 if there is one (2: unreadable).
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: check_resource_groups CTEST_JSON\n";
    return 2;
  }
  std::ifstream f(argv[1]);
  const nlohmann::json doc = nlohmann::json::parse(f, nullptr, false);
  if (doc.is_discarded() || !doc.contains("tests") || !doc["tests"].is_array()) {
    std::cerr << argv[1] << ": not ctest's json-v1 listing\n";
    return 2;
  }
  const std::regex gpu_label("^(.*_)?(vulkan|cuda|hip)$");
  int gpu = 0, bad = 0;
  for (const auto& t : doc["tests"]) {
    std::set<std::string> labels, groups;
    for (const auto& p : t.value("properties", nlohmann::json::array())) {
      const std::string name = p.value("name", "");
      if (name == "LABELS")
        for (const auto& l : p["value"]) labels.insert(l.get<std::string>());
      if (name == "RESOURCE_GROUPS")
        for (const auto& g : p["value"])
          for (const auto& r : g.value("requirements", nlohmann::json::array())) groups.insert(r.value(".type", ""));
    }
    if (labels.count("census")) continue;
    std::string need;
    for (const std::string& l : labels) {
      std::smatch m;
      if (std::regex_match(l, m, gpu_label)) need = m[2];
    }
    if (need.empty()) continue;
    ++gpu;
    if (!groups.count(need)) {
      ++bad;
      std::cout << "no RESOURCE_GROUPS " << need << ":1: " << t.value("name", "?") << "\n";
    }
  }
  if (bad) {
    std::cout << bad << " of " << gpu << " GPU entries declare no device\n";
    return 1;
  }
  std::cout << "resource groups: each of " << gpu << " GPU entries declares its device\n";
  return 0;
}
