#include "properties/replay.hpp"

#include "backends/backend.hpp"
#include "kernels/registry.hpp"

namespace qgate {

bool replay_case_file(const std::string& path, std::vector<ReplayResult>& out, std::string& err) {
  CaseFile cf;
  if (!read_case_file(path, cf, err)) return false;
  const KernelInfo* origin = find_kernel(cf.kernel);
  if (cf.fused) {  // every fusion or attention kernel of the op, on every backend
    for (const KernelInfo& k : fused_kernels()) {
      if (op_name(k.op) != cf.op) continue;
      ReplayResult r;
      r.kernel = &k;
      if (runs_here(k, r)) r.outcome = run_fused_case(k, cf.fc);
      out.push_back(std::move(r));
    }
    if (out.empty()) err = path + ": no registered kernel does " + cf.op;
    return !out.empty();
  }
  for (const KernelInfo& k : all_kernels()) {
    if (&format_info(k.format) != cf.c.w.fmt || op_name(k.op) != cf.op) continue;
    if (k.op != Op::dequant && cf.c.x.empty()) continue;
    ReplayResult r;
    r.kernel = &k;
    if (runs_here(k, r)) r.outcome = run_case(k, cf.c, cf.property == "deterministic");
    out.push_back(std::move(r));
  }
  if (out.empty()) {
    err = path + ": no registered kernel does " + cf.op + " on " + cf.format +
          (origin ? "" : " (the recorded kernel '" + cf.kernel + "' is not registered)");
    return false;
  }
  return true;
}

}  // namespace qgate
