// The ptxas resource report (nvcc -Xptxas -v, or ptxas -v): per entry function, registers,
// stack frame, spill stores/loads and static shared memory. Device functions that are not
// entries ("Function properties for" without "Compiling entry function") are skipped.
#include <cstdlib>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

// The integer just before `unit` in `line` ("4096 bytes smem" -> 4096), or -1.
int number_before(std::string_view line, std::string_view unit) {
  const size_t at = line.find(unit);
  if (at == std::string_view::npos || at < 2) return -1;
  size_t b = at - 1;  // the space
  size_t a = b;
  while (a > 0 && line[a - 1] >= '0' && line[a - 1] <= '9') --a;
  if (a == b) return -1;
  return std::atoi(std::string(line.substr(a, b - a)).c_str());
}

std::string quoted(std::string_view line, size_t from) {
  const size_t a = line.find('\'', from);
  if (a == std::string_view::npos) return "";
  const size_t b = line.find('\'', a + 1);
  return b == std::string_view::npos ? "" : std::string(line.substr(a + 1, b - a - 1));
}

}  // namespace

std::string parse_ptxas(std::string_view text, std::vector<CudaKernel>& out) {
  const size_t before = out.size();
  std::map<std::string, CudaKernel> frames;  // "Function properties for X" -> stack/spills
  std::string props_of;                      // the function the next properties line belongs to
  CudaKernel* entry = nullptr;
  std::vector<std::string> order;
  std::map<std::string, CudaKernel> entries;
  for (const std::string_view line : lines(text)) {
    if (size_t at = line.find("Compiling entry function"); at != std::string_view::npos) {
      const std::string name = quoted(line, at);
      if (name.empty()) return "unreadable entry line: " + std::string(line);
      if (!entries.count(name)) order.push_back(name);
      entry = &entries[name];
      entry->symbol = name;
      continue;
    }
    if (size_t at = line.find("Function properties for "); at != std::string_view::npos) {
      props_of = std::string(line.substr(at + 24));
      while (!props_of.empty() && (props_of.back() == ' ' || props_of.back() == '\r')) props_of.pop_back();
      continue;
    }
    if (line.find("bytes stack frame") != std::string_view::npos) {
      if (props_of.empty()) return "stack-frame line without a function: " + std::string(line);
      CudaKernel& f = frames[props_of];
      f.stack = number_before(line, "bytes stack frame");
      f.spill_stores = number_before(line, "bytes spill stores");
      f.spill_loads = number_before(line, "bytes spill loads");
      if (f.stack < 0 || f.spill_stores < 0 || f.spill_loads < 0) return "unreadable stack-frame line: " + std::string(line);
      props_of.clear();
      continue;
    }
    if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
      if (!entry) continue;  // a device function's usage line
      entry->regs = number_before(line, "registers");
      const int smem = number_before(line, "bytes smem");
      entry->smem = smem < 0 ? 0 : smem;
      if (entry->regs < 0) return "unreadable register line: " + std::string(line);
      entry = nullptr;
    }
  }
  for (const std::string& n : order) {
    CudaKernel k = entries[n];
    if (auto it = frames.find(n); it != frames.end()) {
      k.stack = it->second.stack;
      k.spill_stores = it->second.spill_stores;
      k.spill_loads = it->second.spill_loads;
    }
    out.push_back(k);
  }
  if (out.size() == before) return "no entry functions in the ptxas report";
  return "";
}

}  // namespace qgate::census
