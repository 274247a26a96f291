#include "report/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "properties/fused_case.hpp"
#include "report/heatmap.hpp"
#include "kernels/registry.hpp"

namespace qgate::report {
namespace {

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (u < 0x20 && ch != '\n' && ch != '\t') o += '?';  // not representable in XML 1.0
        else o += ch;
    }
  }
  return o;
}

std::string md_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else if (ch == '\n') o += ' ';
    else o += ch;
  }
  return o;
}

std::string fmt_ratio(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g", r);
  return b;
}

// Index of each failing (kernel, property) run in report order: the heat map vectors
// follow this order.
template <class F>
void for_each_failure(const GateReport& rep, F&& f) {
  size_t i = 0;
  for (const KernelGate& g : rep.kernels)
    for (const auto& [p, r] : g.runs)
      if (!r.pass) f(i++, g, *p, r);
}

std::string heatmap_name(const KernelGate& g, const PropertyInfo& p) {
  return "heatmaps/" + g.kernel->name + "." + std::string(p.name) + ".png";
}

bool write_text(const std::string& path, const std::string& body) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << body;
    if (!f) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

std::string junit_xml(const GateReport& rep, const Context& ctx, const std::vector<std::string>& heatmaps) {
  struct Suite {
    int tests = 0, failures = 0, skipped = 0;
    std::string body;
  };
  std::map<int, Suite> suites;  // one per backend
  std::map<const KernelGate*, std::map<const PropertyInfo*, size_t>> failure_index;
  for_each_failure(rep, [&](size_t i, const KernelGate& g, const PropertyInfo& p, const PropertyRun&) {
    failure_index[&g][&p] = i;
  });
  for (const KernelGate& g : rep.kernels) {
    const KernelInfo& k = *g.kernel;
    Suite& s = suites[static_cast<int>(k.backend)];
    // qgate.<backend>.<format>.<op>; a fusion or attention kernel has no format: qgate.<backend>.<op>.
    const std::string cls = "qgate." + std::string(backend_name(k.backend)) + "." +
                            (is_fused(k.op) ? "" : std::string(format_info(k.format).name) + ".") + std::string(op_name(k.op));
    if (g.skipped) {
      // A skipped kernel still shows as testcases (each property that would have run), so a
      // CI dashboard sees what was not gated and why.
      int n = 0;
      for (const PropertyInfo& p : all_properties()) {
        if (!applies(p, k)) continue;
        ++n;
        s.body += "    <testcase classname=\"" + xml_escape(cls) + "\" name=\"" + xml_escape(k.name + "/" + std::string(p.name)) +
                  "\">\n      <skipped message=\"" + xml_escape(g.skip_reason) + "\"/>\n    </testcase>\n";
      }
      s.tests += n;
      s.skipped += n;
      continue;
    }
    for (const auto& [p, r] : g.runs) {
      ++s.tests;
      s.body += "    <testcase classname=\"" + xml_escape(cls) + "\" name=\"" + xml_escape(k.name + "/" + std::string(p->name)) + "\">\n";
      std::string out = r.coverage + "; max|err|/bound " + fmt_ratio(r.max_ratio) + "; seed 0x";
      char seed[32];
      std::snprintf(seed, sizeof seed, "%llx", static_cast<unsigned long long>(r.seed));
      out += seed;
      if (!r.pass) {
        ++s.failures;
        std::string text = r.failure + "\nrepro: " + r.repro + "\n";
        if (!r.case_file.empty()) text += "case: " + r.case_file + "\n";
        const size_t i = failure_index[&g][p];
        if (i < heatmaps.size() && !heatmaps[i].empty()) text += "heatmap: " + heatmaps[i] + "\n";
        s.body += "      <failure message=\"" + xml_escape(r.repro) + "\" type=\"nbad\">" + xml_escape(text) + "</failure>\n";
      }
      s.body += "      <system-out>" + xml_escape(out) + "</system-out>\n    </testcase>\n";
    }
  }
  int tests = 0, failures = 0, skipped = 0, errors = 0;
  std::string body;
  if (!rep.unloaded.empty()) {  // a plugin or descriptor that could not be gated at all
    std::string errs;
    for (const auto& [what, why] : rep.unloaded)
      errs += "    <testcase classname=\"qgate.plugin\" name=\"" + xml_escape(what) + "\">\n      <error message=\"" +
              xml_escape(why) + "\" type=\"unloaded\"/>\n    </testcase>\n";
    errors = static_cast<int>(rep.unloaded.size());
    tests += errors;
    body += "  <testsuite name=\"qgate.plugin\" tests=\"" + std::to_string(errors) + "\" failures=\"0\" errors=\"" +
            std::to_string(errors) + "\" skipped=\"0\">\n" + errs + "  </testsuite>\n";
  }
  for (const auto& [b, s] : suites) {
    tests += s.tests, failures += s.failures, skipped += s.skipped;
    body += "  <testsuite name=\"qgate." + std::string(backend_name(static_cast<BackendId>(b))) + "\" tests=\"" +
            std::to_string(s.tests) + "\" failures=\"" + std::to_string(s.failures) + "\" errors=\"0\" skipped=\"" +
            std::to_string(s.skipped) + "\">\n" + s.body + "  </testsuite>\n";
  }
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(ctx.seed));
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- " + xml_escape(ctx.command) + " (seed " + seed + ") -->\n" +
         "<testsuites name=\"qgate gate\" tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\">\n" + body + "</testsuites>\n";
}

std::string markdown(const GateReport& rep, const Context& ctx, const std::vector<std::string>& heatmaps,
                     const std::vector<std::string>& notes) {
  struct Cell {
    int pass = 0, fail = 0, skipped = 0;
    double worst = 0;
    std::string reason;
  };
  std::map<std::pair<int, int>, std::map<int, Cell>> cells;
  std::map<int, std::map<int, Cell>> fused;  // fusion/attention op -> backend (no weight format)
  for (const KernelGate& g : rep.kernels) {
    const int b = static_cast<int>(g.kernel->backend);
    Cell& c = is_fused(g.kernel->op) ? fused[static_cast<int>(g.kernel->op)][b]
                                     : cells[{static_cast<int>(g.kernel->format), static_cast<int>(g.kernel->op)}][b];
    if (g.skipped) {
      ++c.skipped;
      c.reason = g.skip_reason;
      continue;
    }
    (g.pass() ? c.pass : c.fail)++;
    c.worst = std::max(c.worst, g.max_ratio());
  }
  std::ostringstream os;
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(ctx.seed));
  int kernels = 0, passing = 0, runs = 0, failing_runs = 0;
  for (const KernelGate& g : rep.kernels) {
    if (g.skipped) continue;
    ++kernels;
    passing += g.pass();
    runs += static_cast<int>(g.runs.size());
    for (const auto& [p, r] : g.runs) failing_runs += !r.pass;
  }
  os << "# qgate gate report\n\n"
     << "- **verdict: " << (rep.pass() ? "PASSED" : "FAILED") << "** — " << passing << " of " << kernels
     << " kernels pass (" << runs << " property runs, " << failing_runs << " failing); nbad = 0 required\n"
     << "- command: `" << ctx.command << "`\n"
     << "- input: " << ctx.input << "\n"
     << "- seed: `" << seed << "`\n\n"
     << "## Matrix (format × op × backend)\n\n"
     << "Each cell: kernels passing / kernels gated and the worst max |err|/bound over their runs "
        "(how close the closest element came to its bound; 1 is the limit). "
        "*not implemented*: no kernel of this format and op is registered for the backend.\n\n";
  std::vector<std::string> footnotes;
  // One cell: registered = whether the backend has a kernel at this point (else not implemented).
  const auto cell = [&](const std::map<int, Cell>& by_backend, BackendId b, bool registered) {
    auto c = by_backend.find(static_cast<int>(b));
    if (c == by_backend.end()) return std::string(registered ? "not selected" : "*not implemented*");
    if (c->second.skipped && !c->second.pass && !c->second.fail) {
      auto fn = std::find(footnotes.begin(), footnotes.end(), c->second.reason);
      if (fn == footnotes.end()) fn = footnotes.insert(footnotes.end(), c->second.reason);
      return "skipped [" + std::to_string(fn - footnotes.begin() + 1) + "]";
    }
    const Cell& x = c->second;
    return std::string(x.fail ? "**FAIL** " : "pass ") + std::to_string(x.pass) + "/" + std::to_string(x.pass + x.fail) +
           " (" + fmt_ratio(x.worst) + ")";
  };
  const auto header = [&](const char* cols, size_t ncols) {
    os << cols;
    for (BackendId b : kAllBackends) os << " " << backend_name(b) << " |";
    os << "\n|";
    for (size_t i = 0; i < ncols + std::size(kAllBackends); ++i) os << "---|";
    os << "\n";
  };
  if (!cells.empty()) {
    header("| format | op |", 2);
    for (const FormatInfo* f : all_formats())
      for (Op op : {Op::dequant, Op::matmul, Op::moe_matmul, Op::gate_up}) {
        auto it = cells.find({static_cast<int>(f->id), static_cast<int>(op)});
        if (it == cells.end()) continue;
        os << "| " << f->name << " | " << op_name(op) << " |";
        for (BackendId b : kAllBackends) {
          bool registered = false;
          for (const KernelInfo& k : all_kernels()) registered |= k.backend == b && k.format == f->id && k.op == op;
          os << " " << cell(it->second, b, registered) << " |";
        }
        os << "\n";
      }
  }
  if (!fused.empty()) {
    os << "\n### Fusions and attention (op × backend)\n\n"
       << "f32 tensors in and out, no quantized weight: no format axis. Same cells as above.\n\n";
    header("| op |", 1);
    for (Op op : kFusedOps) {
      auto it = fused.find(static_cast<int>(op));
      if (it == fused.end()) continue;
      os << "| " << op_name(op) << " |";
      for (BackendId b : kAllBackends) {
        bool registered = false;
        for (const KernelInfo& k : fused_kernels()) registered |= k.backend == b && k.op == op;
        os << " " << cell(it->second, b, registered) << " |";
      }
      os << "\n";
    }
  }
  if (!footnotes.empty()) {
    os << "\n";
    for (size_t i = 0; i < footnotes.size(); ++i) os << "[" << i + 1 << "] skipped: " << md_escape(footnotes[i]) << "  \n";
  }
  // Kernel x property: each cell the run's max |err|/bound (the headroom of that kernel under
  // that property), FAIL with it where the run failed, "-" where the property does not apply.
  std::vector<const PropertyInfo*> props;
  for (const KernelGate& g : rep.kernels)
    for (const auto& [p, r] : g.runs)
      if (std::find(props.begin(), props.end(), p) == props.end()) props.push_back(p);
  if (!props.empty()) {
    os << "\n## Kernel × property (max |err|/bound)\n\n"
       << "Each cell: the worst |err|/bound of that kernel's run of that property (1 is the limit, 0 "
          "an exact result); **FAIL** where the run failed; - where the property does not apply.\n\n"
       << "| kernel |";
    for (const PropertyInfo* p : props) os << " " << p->name << " |";
    os << "\n|---|";
    for (size_t i = 0; i < props.size(); ++i) os << "---|";
    os << "\n";
    for (const KernelGate& g : rep.kernels) {
      if (g.skipped) continue;
      os << "| " << md_escape(g.kernel->name) << " |";
      for (const PropertyInfo* p : props) {
        auto r = std::find_if(g.runs.begin(), g.runs.end(), [&](const auto& pr) { return pr.first == p; });
        if (r == g.runs.end()) os << " - |";
        else os << " " << (r->second.pass ? "" : "**FAIL** ") << fmt_ratio(r->second.max_ratio) << " |";
      }
      os << "\n";
    }
  }
  if (failing_runs) {
    os << "\n## Failures\n\n"
       << "Heat maps: one pixel block per output element (rows × columns); colour = |err|/bound on a "
          "log scale from 1e-4 (dark purple) to 1 (yellow); **red** = outside its bound, **magenta** = "
          "non-finite, **white** = never written (poison left). Below the grey line: the guard region "
          "after the output, laid out as rows past the end (dark grey intact, **orange** overwritten). "
          "The strip at the bottom is the legend in that order.\n";
    for_each_failure(rep, [&](size_t i, const KernelGate& g, const PropertyInfo& p, const PropertyRun& r) {
      os << "\n### " << g.kernel->name << " / " << p.name << "\n\n"
         << "- verdict: " << md_escape(r.failure) << "\n"
         << "- repro: `" << r.repro << "`\n";
      if (!r.case_file.empty()) os << "- case file: `" << r.case_file << "`\n";
      if (i < notes.size() && !notes[i].empty()) os << "- heat map: " << md_escape(notes[i]) << "\n";
      if (i < heatmaps.size() && !heatmaps[i].empty()) os << "\n![" << g.kernel->name << " " << p.name << "](" << heatmaps[i] << ")\n";
    });
  }
  return os.str();
}

std::string write_report(const std::string& dir, const GateReport& rep, const Context& ctx, Written& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "heatmaps", ec);
  if (ec) return dir + ": cannot create: " + ec.message();
  std::vector<std::string> heatmaps, notes;
  for_each_failure(rep, [&](size_t, const KernelGate& g, const PropertyInfo& p, const PropertyRun& r) {
    heatmaps.emplace_back();
    notes.emplace_back();
    if (!r.failing && !r.failing_fused) {
      notes.back() = "no concrete case kept for this failure (the property could not run)";
      return;
    }
    const CaseDetail d = r.failing ? case_detail(*g.kernel, *r.failing) : case_detail(*g.kernel, *r.failing_fused);
    if (!d.error.empty()) {
      notes.back() = "not drawn: " + d.error;
      return;
    }
    HeatmapGeometry geo;
    const std::string rel = heatmap_name(g, p);
    if (std::string e = write_heatmap_png((fs::path(dir) / rel).string(), d, geo); !e.empty()) {
      notes.back() = "not drawn: " + e;
      return;
    }
    heatmaps.back() = rel;
    out.heatmaps.push_back((fs::path(dir) / rel).string());
    std::ostringstream n;
    n << "output " << d.rows << " x " << d.cols;
    if (geo.elems_per_px_row > 1 || geo.elems_per_px_col > 1)
      n << " shrunk (" << geo.elems_per_px_row << " x " << geo.elems_per_px_col << " elements per pixel, worst shown)";
    else
      n << " at " << geo.cell_x << " x " << geo.cell_y << " px per element";
    n << "; " << geo.bad_elements << " bad elements drawn; " << geo.guard_damaged_slots
      << " guard slots overwritten after the output";
    if (d.redzone_before_damaged) n << "; " << d.redzone_before_damaged << " guard bytes overwritten before it (not drawn)";
    notes.back() = n.str();
  });
  out.junit = (fs::path(dir) / "junit.xml").string();
  out.markdown = (fs::path(dir) / "matrix.md").string();
  if (!write_text(out.junit, junit_xml(rep, ctx, heatmaps))) return out.junit + ": cannot write";
  if (!write_text(out.markdown, markdown(rep, ctx, heatmaps, notes))) return out.markdown + ": cannot write";
  return {};
}

}  // namespace qgate::report
