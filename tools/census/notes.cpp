// AMDGPU code-object metadata (the YAML llvm-readelf --notes prints): one AmdKernel per entry
// of amdhsa.kernels. Only the kernel-level keys (4-space indent) are read; the .args list
// below each kernel is deeper and skipped.
#include <cstdlib>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool to_int(std::string_view v, int& out) {
  std::string s(v);
  char* end = nullptr;
  const long x = std::strtol(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0') return false;
  out = static_cast<int>(x);
  return true;
}

}  // namespace

std::string parse_amdgpu_notes(std::string_view text, std::vector<AmdKernel>& out) {
  bool in_kernels = false, have = false;
  AmdKernel k;
  int line_no = 0;
  auto flush = [&]() -> std::string {
    if (!have) return "";
    have = false;
    if (k.symbol.empty()) return "a kernel entry without .name before line " + std::to_string(line_no);
    if (k.wave == 0) return "kernel " + k.symbol + " has no .wavefront_size";
    out.push_back(k);
    k = AmdKernel{};
    return "";
  };
  const size_t before = out.size();
  for (std::string_view line : lines(text)) {
    ++line_no;
    if (starts(line, "amdhsa.kernels:")) {
      in_kernels = true;
      continue;
    }
    if (!in_kernels) continue;
    if (!line.empty() && line[0] != ' ' && line[0] != '-') {  // the next top-level key ends the list
      if (auto e = flush(); !e.empty()) return e;
      in_kernels = false;
      continue;
    }
    std::string_view body;
    if (starts(line, "  - .")) {
      if (auto e = flush(); !e.empty()) return e;
      have = true;
      body = line.substr(4);
    } else if (starts(line, "    .")) {
      body = line.substr(4);
    } else {
      continue;
    }
    if (!have) return "kernel key outside a kernel entry at line " + std::to_string(line_no);
    const size_t colon = body.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = body.substr(1, colon - 1);
    std::string_view val = body.substr(colon + 1);
    while (!val.empty() && val.front() == ' ') val.remove_prefix(1);
    if (key == "name") {
      k.symbol = std::string(val);
      continue;
    }
    if (key == "uses_dynamic_stack") {
      k.dynamic_stack = val == "true";
      continue;
    }
    int* field = key == "vgpr_count" ? &k.vgpr
               : key == "agpr_count" ? &k.agpr
               : key == "sgpr_count" ? &k.sgpr
               : key == "vgpr_spill_count" ? &k.vgpr_spill
               : key == "sgpr_spill_count" ? &k.sgpr_spill
               : key == "private_segment_fixed_size" ? &k.scratch
               : key == "group_segment_fixed_size" ? &k.lds
               : key == "wavefront_size" ? &k.wave
               : key == "max_flat_workgroup_size" ? &k.max_wg
               : nullptr;
    if (field && !to_int(val, *field))
      return "line " + std::to_string(line_no) + ": ." + std::string(key) + " is not an integer: '" + std::string(val) + "'";
  }
  if (auto e = flush(); !e.empty()) return e;
  if (out.size() == before) return "no amdhsa.kernels entries (is this an AMDGPU code object's --notes output?)";
  return "";
}

}  // namespace qgate::census
