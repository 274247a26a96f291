#include "properties/kill_matrix.hpp"

#include <sstream>

#include "backends/backend.hpp"
#include "kernels/registry.hpp"

namespace qgate {

BackendId target_backend(std::string_view target) {
  if (const KernelInfo* k = find_kernel(target)) return k->backend;
  if (const ProbeInfo* p = probe_from_target(target)) return p->backend;
  const size_t cut = target.rfind(target.rfind("probe:", 0) == 0 ? ':' : '_');
  const std::string_view tail = cut == std::string_view::npos ? std::string_view{} : target.substr(cut + 1);
  if (tail == "vk" || tail == "vkdot" || tail == "vulkan") return BackendId::vulkan;
  if (tail == "cuda") return BackendId::cuda;
  if (tail == "hip") return BackendId::hip;
  return BackendId::cpu;
}

std::vector<MutantRow> run_kill_matrix(const std::string& only, const std::string& regression_dir) {
  std::vector<MutantRow> rows;
  for (const mutant::Info& m : mutant::all()) {
    if (!only.empty() && m.name != only) continue;
    MutantRow row;
    row.mutant = &m;
    row.kernel = find_kernel(m.target);
    row.probe = probe_from_target(m.target);
    const BackendId backend = target_backend(m.target);
    const Availability a = row.kernel ? probe_kernel(*row.kernel) : probe_backend(backend);
    if (!a.available) {  // also a target whose backend this build does not have
      row.skipped = true;
      row.skip_reason = std::string(backend_name(backend)) + ": " + a.reason;
    } else if (row.probe) {
      mutant::activate(m.id);
      row.probe_report = row.probe->run(64);
      mutant::activate(mutant::Id::none);
      row.killed = !row.probe_report.pass && !row.probe_report.skipped;
      row.killed_by_named = row.killed && m.killer == row.probe->name;
      if (row.killed) row.killing_repro = "qgate mutants --only " + std::string(m.name);
    } else if (row.kernel) {
      mutant::activate(m.id);
      for (const PropertyInfo& p : all_properties()) {
        if (!applies(p, *row.kernel)) continue;
        RunOptions opt;
        const bool named = p.name == m.killer;
        if (named) opt.regression_dir = regression_dir;  // keep the killing case forever
        PropertyRun r = run_property(*row.kernel, p, opt);
        if (!r.pass) {
          row.killed = true;
          if (named) {
            row.killed_by_named = true;
            row.killing_repro = r.repro;
          }
        }
        row.runs.emplace_back(&p, std::move(r));
      }
      mutant::activate(mutant::Id::none);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_kill_matrix(const std::vector<MutantRow>& rows) {
  std::ostringstream os;
  os << "kill matrix (KILL = the property fails with the mutant switched on; * = the named killer)\n";
  os << "  mutant                    target kernel                     ";
  for (const PropertyInfo& p : all_properties()) os << " " << p.name.substr(0, 6);
  os << "  verdict\n";
  for (const MutantRow& r : rows) {
    char head[128];
    std::snprintf(head, sizeof head, "  %-25.25s %-33.33s", std::string(r.mutant->name).c_str(),
                  std::string(r.mutant->target).c_str());
    os << head;
    for (const PropertyInfo& p : all_properties()) {
      std::string cell = "   -  ";
      for (const auto& [rp, run] : r.runs)
        if (rp == &p) cell = run.pass ? "  live" : (p.name == r.mutant->killer ? " KILL*" : "  KILL");
      os << " " << cell;
    }
    if (r.skipped) os << "  skipped: " << r.skip_reason << "\n";
    else if (r.probe) os << "  probe " << r.probe->name << ": " << r.probe_report.summary << (r.ok() ? "  -> killed\n" : "  -> SURVIVED\n");
    else if (!r.kernel) os << "  ERROR: target not registered\n";
    else if (!r.killed) os << "  SURVIVED\n";
    else if (!r.killed_by_named) os << "  killed, but not by " << r.mutant->killer << "\n";
    else os << "  killed\n";
  }
  return os.str();
}

}  // namespace qgate
