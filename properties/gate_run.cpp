#include "properties/gate_run.hpp"
#include "kernels/registry.hpp"

#include <cstdio>
#include <map>
#include <sstream>

namespace qgate {

bool GateFilter::matches(const KernelInfo& k) const {
  if (!backend.empty() && backend_name(k.backend) != backend) return false;
  // A fusion or attention kernel has no weight format: --format selects weight kernels only.
  if (!format.empty() && (is_fused(k.op) || find_format(format) != &format_info(k.format))) return false;
  if (!op.empty() && op_name(k.op) != op) return false;
  if (!kernel.empty() && k.name.find(kernel) == std::string::npos) return false;
  // --property selects the kernels it applies to: a kernel it does not reach would be
  // reported having passed nothing.
  if (!property.empty()) {
    const PropertyInfo* p = find_property(property);
    if (!p || !applies(*p, k)) return false;
  }
  return true;
}

bool KernelGate::pass() const {
  if (skipped) return true;
  for (const auto& [p, r] : runs)
    if (!r.pass) return false;
  return true;
}
double KernelGate::max_ratio() const {
  double m = 0;
  for (const auto& [p, r] : runs) m = std::max(m, r.max_ratio);
  return m;
}
bool GateReport::pass() const {
  if (!unloaded.empty()) return false;
  for (const KernelGate& k : kernels)
    if (!k.pass()) return false;
  return true;
}

GateReport run_gate(const GateFilter& f, const RunOptions& opt,
                    const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::vector<const KernelInfo*> selected;
  for (const KernelInfo& k : all_kernels())
    if (f.matches(k)) selected.push_back(&k);
  for (const KernelInfo& k : fused_kernels())
    if (f.matches(k)) selected.push_back(&k);
  return run_gate_kernels(selected, f, opt, progress);
}

GateReport run_gate_kernels(std::span<const KernelInfo* const> selected, const GateFilter& f, const RunOptions& opt,
                            const std::function<void(size_t, size_t, const std::string&)>& progress) {
  GateReport rep;
  for (size_t i = 0; i < selected.size(); ++i) {
    const KernelInfo& k = *selected[i];
    if (progress) progress(i, selected.size(), k.name);
    KernelGate g;
    g.kernel = &k;
    if (runs_here(k, g)) {
      for (const PropertyInfo& p : all_properties()) {
        if (!applies(p, k) || (!f.property.empty() && p.name != f.property)) continue;
        g.runs.emplace_back(&p, run_property(k, p, opt));
      }
    }
    rep.kernels.push_back(std::move(g));
  }
  return rep;
}

std::string format_matrix(const GateReport& r) {
  struct Cell {
    int pass = 0, fail = 0, skipped = 0;
    double worst = 0;
    std::string reason;
  };
  std::map<std::pair<int, int>, std::map<int, Cell>> cells;  // (format, op) -> backend -> cell
  std::map<int, std::map<int, Cell>> fused;                   // fused op -> backend -> cell (no format)
  for (const KernelGate& g : r.kernels) {
    const int b = static_cast<int>(g.kernel->backend);
    Cell& c = is_fused(g.kernel->op) ? fused[static_cast<int>(g.kernel->op)][b]
                                     : cells[{static_cast<int>(g.kernel->format), static_cast<int>(g.kernel->op)}][b];
    if (g.skipped) { ++c.skipped; c.reason = g.skip_reason; continue; }
    (g.pass() ? c.pass : c.fail)++;
    c.worst = std::max(c.worst, g.max_ratio());
  }
  std::ostringstream os;
  char buf[256];
  const auto row = [&](const std::map<int, Cell>& by_backend) {
    for (BackendId b : kAllBackends) {
      std::string s = "-";
      auto c = by_backend.find(static_cast<int>(b));
      if (c != by_backend.end()) {
        const Cell& x = c->second;
        if (x.skipped && !x.pass && !x.fail) {
          s = "skipped";
        } else {
          char t[64];
          std::snprintf(t, sizeof t, "%s %d/%d (%.2g)", x.fail ? "FAIL" : "PASS", x.pass, x.pass + x.fail, x.worst);
          s = t;
        }
      }
      std::snprintf(buf, sizeof buf, " %-18s", s.c_str());
      os << buf;
    }
    os << "\n";
  };
  const auto header = [&](const char* first, const char* second) {
    std::snprintf(buf, sizeof buf, "  %-10s %-8s", first, second);
    os << buf;
    for (BackendId b : kAllBackends) {
      std::snprintf(buf, sizeof buf, " %-18s", std::string(backend_name(b)).c_str());
      os << buf;
    }
    os << "\n";
  };
  if (!cells.empty()) {
    os << "gate matrix: kernels passing / kernels gated (worst max|err|/bound); nbad = 0 required\n";
    header("format", "op");
    for (const FormatInfo* f : all_formats())
      for (Op op : {Op::dequant, Op::matmul, Op::moe_matmul, Op::gate_up}) {
        auto it = cells.find({static_cast<int>(f->id), static_cast<int>(op)});
        if (it == cells.end()) continue;
        std::snprintf(buf, sizeof buf, "  %-10s %-8s", std::string(f->name).c_str(), std::string(op_name(op)).c_str());
        os << buf;
        row(it->second);
      }
  }
  if (!fused.empty()) {
    // Fusions and attention take f32 tensors and no quantized weight: a table of their own,
    // op x backend, never a format row.
    os << "fusions and attention (no weight format): kernels passing / kernels gated (worst max|err|/bound)\n";
    header("op", "");
    for (Op op : kFusedOps) {
      auto it = fused.find(static_cast<int>(op));
      if (it == fused.end()) continue;
      std::snprintf(buf, sizeof buf, "  %-19s", std::string(op_name(op)).c_str());
      os << buf;
      row(it->second);
    }
  }
  for (BackendId b : kAllBackends) {
    bool gated = false, registered = false;
    for (const KernelGate& g : r.kernels) gated |= g.kernel->backend == b;
    for (const KernelInfo& k : all_kernels()) registered |= k.backend == b;
    for (const KernelInfo& k : fused_kernels()) registered |= k.backend == b;
    const Availability a = probe_backend(b);
    os << "  " << backend_name(b) << ": ";
    if (!a.available) os << "skipped: " << a.reason;
    else if (gated) os << a.reason;
    else if (registered) os << "not selected by the filter";
    else os << a.reason << " (no kernels registered)";
    os << "\n";
  }
  int n = 0, pass = 0, runs = 0;
  for (const KernelGate& g : r.kernels) {
    if (g.skipped) continue;
    ++n;
    pass += g.pass();
    runs += static_cast<int>(g.runs.size());
  }
  os << "  " << pass << " of " << n << " kernels pass (" << runs << " property runs)";
  if (!r.unloaded.empty()) os << "; " << r.unloaded.size() << " could not be gated";
  os << "\n";
  return os.str();
}

std::string format_failures(const GateReport& r) {
  std::ostringstream os;
  for (const auto& [what, why] : r.unloaded) os << "FAIL " << what << ": " << why << "\n";
  for (const KernelGate& g : r.kernels)
    for (const auto& [p, run] : g.runs)
      if (!run.pass) {
        os << "FAIL " << g.kernel->name << " / " << p->name << " (seed 0x" << std::hex << run.seed << std::dec
           << "): " << run.failure << "\n";
        if (!run.repro.empty()) os << "  repro: " << run.repro << "\n";
        if (!run.case_file.empty()) os << "  case:  " << run.case_file << "\n";
      }
  return os.str();
}

}  // namespace qgate
