// The comma-separated lists `qgate bench` takes (--format, --shapes, --m), parsed once for
// every backend: a bad item is a usage error naming the option and the item.
#pragma once
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "oracles/formats/format.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {

inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

inline std::vector<const FormatInfo*> parse_formats(const std::string& list) {
  std::vector<const FormatInfo*> v;
  for (const std::string& item : split_list(list)) {
    const FormatInfo* f = find_format(item);
    if (!f) throw Failure{"--format: unknown format '" + item + "'"};
    v.push_back(f);
  }
  return v;
}

// NxK items, K a multiple of 256 and N of n_multiple, each at most 2^17.
inline std::vector<std::pair<int64_t, int64_t>> parse_shapes(const std::string& list, int64_t n_multiple) {
  std::vector<std::pair<int64_t, int64_t>> v;
  for (const std::string& item : split_list(list)) {
    long long n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(item.c_str(), "%lldx%lld%c", &n, &k, &tail) != 2 || n < n_multiple || n % n_multiple || k < 256 ||
        k % 256 || n > (1 << 17) || k > (1 << 17))
      throw Failure{"--shapes: '" + item + "' is not NxK with " +
                    (n_multiple > 1 ? "N a multiple of " + std::to_string(n_multiple) + " and " : std::string()) +
                    "K a multiple of 256 (at most 131072 each)"};
    v.emplace_back(n, k);
  }
  return v;
}

}  // namespace qgate::cli
