// qgate census: what every compiled kernel costs, per target, gated against the budgets
// declared beside its source (docs/HIP.md). AMD: for each code object
// <objects>/<target>/<source>.co (kernels/hip/hip.cmake builds them), the AMDGPU metadata
// (llvm-readelf --notes) and the disassembly (llvm-objdump -d); CUDA sm_90: the ptxas
// report <cuda-reports>/<source>.ptxas.txt (kernels/hip/census.cmake). The parsing and the
// rules live in tools/census/ (unit-tested); this file runs the tools and prints.
// Exit 0: every row within budget; 1: a spill, scratch, a missing or exceeded budget;
// 2: bad usage or nothing to census.
#include <fnmatch.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "properties/shell_quote.hpp"
#include "tools/census/census.hpp"
#include "tools/qgate/commands.hpp"

#ifndef QGATE_CENSUS_BUILD_DIR
#define QGATE_CENSUS_BUILD_DIR "build"
#endif
#ifndef QGATE_CENSUS_SOURCE_DIR
#define QGATE_CENSUS_SOURCE_DIR "."
#endif
#ifndef QGATE_CENSUS_READELF
#define QGATE_CENSUS_READELF "llvm-readelf-19"
#endif
#ifndef QGATE_CENSUS_OBJDUMP
#define QGATE_CENSUS_OBJDUMP "llvm-objdump-19"
#endif
#ifndef QGATE_CENSUS_CUDA_WHY
#define QGATE_CENSUS_CUDA_WHY "this qgate was built without the census' CUDA reports"
#endif

namespace qgate::cli {
namespace {

namespace fs = std::filesystem;
using census::Row;

struct Options {
  std::string build = QGATE_CENSUS_BUILD_DIR, objects, cuda_reports, target = "*", kernel = "*";
  std::vector<std::string> budget_dirs;
  bool json = false, suggest = false;
};

// stdout of a command; throws on a non-zero exit.
std::string run(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen((cmd + " 2>&1").c_str(), "r"), pclose);
  if (!p) throw Failure{"cannot run: " + cmd, 1};
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p.get())) > 0;) out.append(buf, n);
  const int st = pclose(p.release());
  if (st != 0) throw Failure{"'" + cmd + "' failed (status " + std::to_string(WEXITSTATUS(st)) + "): " + out.substr(0, 400), 1};
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool glob(const std::string& pat, const std::string& s) { return fnmatch(pat.c_str(), s.c_str(), 0) == 0; }

// The budgets of one source: the first <dir>/<source>.budget found; "" if none.
struct Budgets {
  std::vector<census::BudgetLine> lines;
  std::string file;
};
Budgets load_budgets(const Options& o, const std::string& source, std::vector<std::string>& errors) {
  Budgets b;
  for (const std::string& d : o.budget_dirs) {
    const fs::path p = fs::path(d) / (source + ".budget");
    if (!fs::exists(p)) continue;
    b.file = p.string();
    if (auto e = census::parse_budgets(read_text(p), p.string(), b.lines); !e.empty()) errors.push_back(e);
    break;
  }
  return b;
}

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ext) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

void amd_rows(const Options& o, std::vector<Row>& rows) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(o.objects, ec))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& d : dirs) {
    const std::string target = d.filename().string();
    if (!glob(o.target, target)) continue;
    const census::TargetLimits* lim = census::target_limits(target);
    if (!lim) throw Failure{"census: no limits known for AMD target " + target + " (tools/census/occupancy.cpp)", 1};
    for (const fs::path& co : sorted_files(d, ".co")) {
      std::vector<census::AmdKernel> ks;
      if (auto e = census::parse_amdgpu_notes(run(std::string(QGATE_CENSUS_READELF) + " --notes " + shell_quote(co.string())), ks);
          !e.empty())
        throw Failure{co.string() + ": " + e, 1};
      const auto isa = census::parse_disassembly(
          run(std::string(QGATE_CENSUS_OBJDUMP) + " -d --no-show-raw-insn " + shell_quote(co.string())));
      for (const census::AmdKernel& k : ks) {
        Row r{target, co.stem().string(), census::short_name(k.symbol), k.symbol, {}, {}, {}, {}};
        if (!glob(o.kernel, r.kernel)) continue;
        const census::Occupancy occ = census::amd_occupancy(*lim, k);
        r.m = {{"vgpr", k.vgpr}, {"agpr", k.agpr}, {"sgpr", k.sgpr}, {"vgpr_spill", k.vgpr_spill},
               {"sgpr_spill", k.sgpr_spill}, {"scratch", k.scratch}, {"lds", k.lds}, {"wave", k.wave},
               {"waves", occ.waves}};
        if (k.dynamic_stack) r.failures.push_back(target + " " + r.kernel + ": dynamic stack (scratch of unknown size)");
        auto it = isa.find(k.symbol);
        if (it == isa.end()) throw Failure{co.string() + ": no disassembly for kernel " + k.symbol, 1};
        r.m["loads"] = it->second.loads;
        r.m["full_waits"] = it->second.full_waits;
        r.m["addr64"] = it->second.addr64;
        r.m["exec_branches"] = it->second.exec_branches;
        r.m["saveexec"] = it->second.saveexec;
        r.limiter = std::string(occ.limiter);
        rows.push_back(std::move(r));
      }
    }
  }
}

// "" when the CUDA rows were read, else why they were skipped.
std::string cuda_rows(const Options& o, std::vector<Row>& rows) {
  if (!glob(o.target, "sm_90")) return "not selected (--target)";
  const auto files = sorted_files(o.cuda_reports, ".txt");
  if (files.empty()) {
    std::string why = QGATE_CENSUS_CUDA_WHY;
    if (why.empty()) why = "no ptxas reports under " + o.cuda_reports + " (build the target qgate_census_cuda_reports)";
    return why;
  }
  for (const fs::path& f : files) {
    std::string source = f.stem().string();  // <source>.ptxas
    if (auto dot = source.find('.'); dot != std::string::npos) source.resize(dot);
    std::vector<census::CudaKernel> ks;
    if (auto e = census::parse_ptxas(read_text(f), ks); !e.empty()) throw Failure{f.string() + ": " + e, 1};
    for (const census::CudaKernel& k : ks) {
      Row r{"sm_90", source, census::short_name(k.symbol), k.symbol, {}, "regs", {}, {}};
      if (!glob(o.kernel, r.kernel)) continue;
      r.m = {{"vgpr", k.regs}, {"vgpr_spill", k.spill_stores + k.spill_loads}, {"scratch", k.stack},
             {"lds", k.smem}, {"waves", census::sm90_warps_by_regs(k.regs)}};
      rows.push_back(std::move(r));
    }
  }
  return "";
}

std::string num(const Row& r, const char* k) {
  auto it = r.m.find(k);
  return it == r.m.end() ? "-" : std::to_string(it->second);
}

// One budget line per (source, kernel family, target): the family's worst case as measured.
void print_suggestions(const std::vector<Row>& rows) {
  std::map<std::string, std::map<std::string, Row>> by;  // source -> "family target" -> worst
  for (const Row& r : rows) {
    const std::string family = r.kernel.substr(0, r.kernel.find('<')) + (r.kernel.find('<') != std::string::npos ? "<*" : "");
    Row& w = by[r.source][family + " " + r.target];
    if (w.kernel.empty()) {
      w = r;
      w.kernel = family;
      continue;
    }
    for (auto& [k, v] : r.m) w.m[k] = k == "waves" ? std::min(w.m[k], v) : std::max(w.m[k], v);
  }
  for (auto& [source, lines] : by) {
    std::cout << "# " << source << ".budget\n";
    for (auto& [key, w] : lines) std::cout << census::suggest_line(w) << '\n';
  }
}

void run_census(Options o) {
  if (o.objects.empty()) o.objects = (fs::path(o.build) / "kernels" / "hip").string();
  if (o.cuda_reports.empty()) o.cuda_reports = (fs::path(o.build) / "kernels" / "census" / "sm_90").string();
  if (o.budget_dirs.empty())
    o.budget_dirs = {std::string(QGATE_CENSUS_SOURCE_DIR) + "/kernels/cuda", std::string(QGATE_CENSUS_SOURCE_DIR) + "/kernels/hip"};
  if (!fs::is_directory(o.objects))
    throw Failure{"no AMD code objects under " + o.objects + " (configure with QGATE_HIP=ON and build qgate_hip_code_objects)"};
  std::vector<Row> rows;
  amd_rows(o, rows);
  const size_t n_amd = rows.size();
  const std::string cuda_skip = cuda_rows(o, rows);
  if (rows.empty()) throw Failure{"census: no kernel matches --target " + o.target + " --kernel " + o.kernel};
  if (o.suggest) {
    print_suggestions(rows);
    return;
  }

  std::vector<std::string> errors;
  std::map<std::string, Budgets> budgets;
  int failures = 0;
  for (Row& r : rows) {
    auto it = budgets.find(r.source);
    if (it == budgets.end()) it = budgets.emplace(r.source, load_budgets(o, r.source, errors)).first;
    failures += census::check_row(r, it->second.lines);
  }
  for (const std::string& e : errors) std::cerr << "census: budget file: " << e << '\n';

  if (o.json) {
    nlohmann::json j;
    j["amd"] = nlohmann::json::array();
    j["sm_90"] = nlohmann::json::array();
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      nlohmann::json x = {{"target", r.target}, {"source", r.source}, {"kernel", r.kernel}, {"symbol", r.symbol},
                          {"occupancy_limiter", r.limiter}, {"failures", r.failures},
                          {"waivers", r.waivers}};
      for (auto& [k, v] : r.m) x[r.target == "sm_90" && k == "vgpr" ? "regs" : r.target == "sm_90" && k == "lds" ? "smem"
                                 : r.target == "sm_90" && k == "waves" ? "warps_per_sm" : r.target == "sm_90" && k == "vgpr_spill" ? "spill_bytes"
                                 : r.target == "sm_90" && k == "scratch" ? "stack" : k] = v;
      j[r.target == "sm_90" ? "sm_90" : "amd"].push_back(x);
    }
    if (!cuda_skip.empty()) j["sm_90_skipped"] = cuda_skip;
    j["failures"] = failures + static_cast<int>(errors.size());
    j["pass"] = failures == 0 && errors.empty();
    std::cout << j.dump(2) << '\n';
  } else {
    std::vector<std::vector<std::string>> t{{"TARGET", "SOURCE", "KERNEL", "VGPR", "AGPR", "SGPR", "SPILL", "SCRATCH", "LDS",
                                             "WAVE", "WAVES/SIMD", "LOADS", "FULLWAIT", "ADDR64", "EXECBR", "SAVEEXEC", "STATUS"}};
    std::vector<std::vector<std::string>> c{{"TARGET", "SOURCE", "KERNEL", "REGS", "SPILL(B)", "STACK", "SMEM", "WARPS/SM", "STATUS"}};
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const std::string status = !r.failures.empty() ? "FAIL" : !r.waivers.empty() ? "WAIVED" : "ok";
      if (r.target == "sm_90")
        c.push_back({r.target, r.source, r.kernel, num(r, "vgpr"), num(r, "vgpr_spill"), num(r, "scratch"), num(r, "lds"),
                     num(r, "waves"), status});
      else
        t.push_back({r.target, r.source, r.kernel, num(r, "vgpr"), num(r, "agpr"), num(r, "sgpr"),
                     num(r, "spill"), num(r, "scratch"), num(r, "lds"),
                     num(r, "wave"), num(r, "waves") + " (" + r.limiter + ")", num(r, "loads"), num(r, "full_waits"),
                     num(r, "addr64"), num(r, "exec_branches"), num(r, "saveexec"), status});
    }
    std::cout << "AMD code objects (" << o.objects << "):\n";
    print_table(t, 3);
    std::cout << "\nCUDA sm_90 (ptxas -v, " << o.cuda_reports << "):\n";
    if (cuda_skip.empty()) print_table(c, 3);
    else std::cout << "skipped: " << cuda_skip << '\n';
    size_t waivers = 0;
    for (const Row& r : rows)
      for (const std::string& w : r.waivers) std::cout << "WAIVED " << w << '\n', ++waivers;
    for (const Row& r : rows)
      for (const std::string& f : r.failures) std::cout << "FAIL " << f << '\n';
    std::cout << "census: " << n_amd << " AMD kernel x target rows, " << rows.size() - n_amd << " sm_90 rows"
              << (cuda_skip.empty() ? "" : " (sm_90 skipped)") << "; " << waivers << " waiver(s), " << failures + errors.size()
              << " failure(s)\n";
  }
  if (failures || !errors.empty()) throw Failure{"census gate FAILED: " + std::to_string(failures + errors.size()) + " failure(s)", 1};
}

}  // namespace

void add_census(CLI::App& app) {
  auto* cmd = app.add_subcommand("census",
                                 "Code-object census: registers, spills, scratch, LDS, occupancy and the ISA census of every "
                                 "kernel x target, gated against the budgets beside each source (exit 1 on a failure)");
  auto o = std::make_shared<Options>();
  cmd->add_option("--build", o->build, "build directory holding kernels/hip/<target>/*.co")->capture_default_str();
  cmd->add_option("--objects", o->objects, "AMD code-object root (default <build>/kernels/hip)");
  cmd->add_option("--cuda-reports", o->cuda_reports, "ptxas reports (default <build>/kernels/census/sm_90)");
  cmd->add_option("--budgets", o->budget_dirs, "directories searched for <source>.budget (default kernels/cuda, kernels/hip)");
  cmd->add_option("--target", o->target, "glob over targets (gfx1201, gfx*, sm_90)")->capture_default_str();
  cmd->add_option("--kernel", o->kernel, "glob over short kernel names, e.g. 'matvec_kernel<*'")->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON instead of tables");
  cmd->add_flag("--suggest", o->suggest, "print budget lines admitting every kernel as measured (per source, family, target)");
  cmd->callback([o] { run_census(*o); });
}

}  // namespace qgate::cli
