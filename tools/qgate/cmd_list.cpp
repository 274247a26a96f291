// qgate list: what this build knows — formats, kernels, backends — read from the
// registries (formats.inc, kernels.inc), never listed by hand; and with --devices, the GPU
// devices this machine has per backend, optionally as a CTest resource spec file.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kernel.hpp"
#include "oracles/formats/format.hpp"
#include "backends/backend.hpp"
#include "tools/qgate/commands.hpp"
#include "kernels/registry.hpp"

namespace qgate::cli {
namespace {

struct ListOptions {
  bool formats = false, kernels = false, backends = false, json = false;
  bool devices = false, resource_spec = false;
  int slots = 1;
};

std::string str(std::string_view s) { return std::string(s); }

// Bits per weight of a block format, e.g. "4.5"; tensor-level formats have per-group
// overhead that depends on the tensor, so only their code width is fixed: "4+".
std::string bits_per_weight(const FormatInfo& f) {
  char buf[32];
  if (f.tensor_level()) {
    int bits = 0;
    while ((1 << bits) < f.code_levels) ++bits;
    std::snprintf(buf, sizeof buf, "%d+", bits);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", 8.0 * f.block_bytes / f.block_elems);
  }
  return buf;
}

std::string tile_text(const Tile& t) {
  return std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k);
}

size_t kernels_on(BackendId b) {
  size_t n = 0;
  for (const KernelInfo& k : all_kernels()) n += k.backend == b;
  return n;
}

std::vector<BackendId> all_backends() {
  std::vector<BackendId> v;
  for (int b = 0; b < static_cast<int>(BackendId::count); ++b) v.push_back(static_cast<BackendId>(b));
  return v;
}

constexpr const char* kNotBuilt = "not built in this configuration";

// A backend without registered kernels still says what its runtime found (hip: the runtime
// is built, its kernels run only as code objects, e.g. "skipped: no AMD GPU ...").
std::string no_kernels(const Availability& a) {
  if (a.reason.rfind(kNotBuilt, 0) == 0) return a.reason;
  return std::string("no kernels registered; runtime ") + (a.available ? "available: " : "skipped: ") + a.reason;
}

// ---- text ----

void text_formats() {
  std::vector<std::vector<std::string>> rows{{"FORMAT", "GGML", "ELEMS", "BYTES", "BPW", "SOURCE"}};
  for (const FormatInfo* f : all_formats())
    rows.push_back({str(f->name), f->ggml_type < 0 ? "-" : std::to_string(f->ggml_type),
                    f->tensor_level() ? "-" : std::to_string(f->block_elems),
                    f->tensor_level() ? "-" : std::to_string(f->block_bytes), bits_per_weight(*f), str(f->source)});
  std::cout << "formats (" << all_formats().size() << "):\n";
  print_table(rows);
  std::cout << "ELEMS/BYTES: per block; '-' = tensor-level container. BPW '4+': 4-bit codes plus "
               "per-group scales and zeros.\n";
}

void text_kernels() {
  std::vector<std::vector<std::string>> rows{{"KERNEL", "OP", "FORMAT", "BACKEND", "ACT", "OUT", "TILE"}};
  for (const KernelInfo& k : all_kernels())
    rows.push_back({k.name, str(op_name(k.op)), str(format_info(k.format).name), str(backend_name(k.backend)),
                    k.op == Op::dequant ? "-" : str(act_name(k.prec.act)), str(out_name(k.prec.out)),
                    tile_text(k.tile)});
  std::cout << "kernels (" << all_kernels().size() << "):\n";
  print_table(rows);
  std::cout << "ACT: activation quantization (f32 = none; - = no activations). TILE: m x n x k.\n";
  // Fusions and attention take f32 tensors, no quantized weight: a table of their own.
  std::vector<std::vector<std::string>> fused{{"KERNEL", "OP", "BACKEND", "OUT"}};
  for (const KernelInfo& k : fused_kernels())
    fused.push_back({k.name, str(op_name(k.op)), str(backend_name(k.backend)), str(out_name(k.prec.out))});
  std::cout << "\nfused kernels (" << fused_kernels().size() << "; no weight format; gated by qgate gate and qgate_fused_tests, docs/FUSIONS.md):\n";
  print_table(fused);
}

void text_backends() {
  std::vector<std::vector<std::string>> rows{{"BACKEND", "KERNELS", "STATUS"}};
  for (BackendId b : all_backends()) {
    const size_t n = kernels_on(b);
    const Availability a = probe_backend(b);
    rows.push_back({str(backend_name(b)), n ? std::to_string(n) : "-",
                    n ? (a.available ? "available: " + a.reason : "skipped: " + a.reason) : no_kernels(a)});
  }
  std::cout << "backends:\n";
  print_table(rows);
  // Coverage, format x backend: which ops have a kernel; never silently absent.
  std::vector<std::vector<std::string>> cov{{"FORMAT"}};
  for (BackendId b : all_backends()) cov[0].push_back(str(backend_name(b)));
  for (const FormatInfo* f : all_formats()) {
    std::vector<std::string> row{str(f->name)};
    for (BackendId b : all_backends()) {
      bool dq = false, mm = false;
      for (const KernelInfo& k : all_kernels())
        if (k.backend == b && k.format == f->id) (k.op == Op::dequant ? dq : mm) = true;
      row.push_back(dq || mm ? std::string(dq ? "dequant" : "") + (dq && mm ? "+" : "") + (mm ? "matmul" : "")
                             : "not implemented");
    }
    cov.push_back(row);
  }
  std::cout << "coverage (ops with a registered kernel, per format and backend):\n";
  print_table(cov);
}

// ---- json ----

nlohmann::json json_formats() {
  auto a = nlohmann::json::array();
  for (const FormatInfo* f : all_formats()) {
    nlohmann::json j{{"name", f->name},
                     {"ggml_type", f->ggml_type < 0 ? nlohmann::json(nullptr) : nlohmann::json(f->ggml_type)},
                     {"tensor_level", f->tensor_level()},
                     {"block_elems", f->tensor_level() ? nlohmann::json(nullptr) : nlohmann::json(f->block_elems)},
                     {"block_bytes", f->tensor_level() ? nlohmann::json(nullptr) : nlohmann::json(f->block_bytes)},
                     {"bits_per_weight", f->tensor_level() ? nlohmann::json(nullptr)
                                                           : nlohmann::json(8.0 * f->block_bytes / f->block_elems)},
                     {"code_levels", f->code_levels},
                     {"activation", f->is_activation},
                     {"source", f->source}};
    a.push_back(std::move(j));
  }
  return a;
}

nlohmann::json json_kernels() {
  auto a = nlohmann::json::array();
  for (const KernelInfo& k : all_kernels())
    a.push_back({{"name", k.name},
                 {"op", op_name(k.op)},
                 {"format", format_info(k.format).name},
                 {"backend", backend_name(k.backend)},
                 {"act", k.op == Op::dequant ? nlohmann::json(nullptr) : nlohmann::json(act_name(k.prec.act))},
                 {"out", out_name(k.prec.out)},
                 {"tile", {{"m", k.tile.m}, {"n", k.tile.n}, {"k", k.tile.k}}},
                 {"max_m", k.max_m},
                 {"deterministic", k.deterministic}});
  for (const KernelInfo& k : fused_kernels())  // no weight format
    a.push_back({{"name", k.name},
                 {"op", op_name(k.op)},
                 {"format", nullptr},
                 {"backend", backend_name(k.backend)},
                 {"out", out_name(k.prec.out)},
                 {"deterministic", k.deterministic}});
  return a;
}

nlohmann::json json_backends() {
  auto a = nlohmann::json::array();
  for (BackendId b : all_backends()) {
    const size_t n = kernels_on(b);
    nlohmann::json j{{"name", backend_name(b)}, {"built", n > 0}, {"kernels", n}};
    if (n == 0) j["reason"] = no_kernels(probe_backend(b));
    a.push_back(std::move(j));
  }
  return a;
}

// The GPU backends, each with its devices (the resource types of ctest's allocation).
struct BackendDevices {
  BackendId backend;
  std::vector<std::string> names;
  std::string why;  // when names is empty
};
std::vector<BackendDevices> gpu_devices() {
  std::vector<BackendDevices> v;
  for (BackendId b : all_backends()) {
    if (b == BackendId::cpu) continue;
    BackendDevices d{b, {}, {}};
    d.names = backend_devices(b, d.why);
    v.push_back(std::move(d));
  }
  return v;
}

void text_devices() {
  std::cout << "devices (the index is what ctest's resource allocation and QGATE_<BACKEND>_DEVICE select):\n";
  std::vector<std::vector<std::string>> rows;
  for (const BackendDevices& d : gpu_devices()) {
    if (d.names.empty()) rows.push_back({str(backend_name(d.backend)), "-", "skipped: " + d.why});
    for (size_t i = 0; i < d.names.size(); ++i)
      rows.push_back({i ? "" : str(backend_name(d.backend)), std::to_string(i), d.names[i]});
  }
  print_table(rows, 1);
}

nlohmann::json json_devices() {
  auto a = nlohmann::json::array();
  for (const BackendDevices& d : gpu_devices()) {
    nlohmann::json j{{"backend", backend_name(d.backend)}, {"devices", d.names}};
    if (d.names.empty()) j["reason"] = d.why;
    a.push_back(std::move(j));
  }
  return a;
}

// CTest's resource spec (version 1.0): one resource type per GPU backend, each device one
// id with `slots` slots (the test entries of that backend declare RESOURCE_GROUPS
// "<backend>:1", so at most `slots` of them share a device). A backend without a device
// gets one id "absent" with 1024 slots: its entries still run and report skipped with
// the reason, rather than failing for want of a resource.
nlohmann::json resource_spec(int slots) {
  nlohmann::json local = nlohmann::json::object();
  for (const BackendDevices& d : gpu_devices()) {
    auto ids = nlohmann::json::array();
    for (size_t i = 0; i < d.names.size(); ++i) ids.push_back({{"id", std::to_string(i)}, {"slots", slots}});
    if (d.names.empty()) ids.push_back({{"id", "absent"}, {"slots", 1024}});
    local[str(backend_name(d.backend))] = ids;
  }
  return {{"version", {{"major", 1}, {"minor", 0}}}, {"local", nlohmann::json::array({local})}};
}

void run_list(const ListOptions& o) {
  if (o.devices) {
    if (o.resource_spec) std::cout << resource_spec(o.slots).dump(2) << '\n';
    else if (o.json) std::cout << nlohmann::json{{"devices", json_devices()}}.dump(2) << '\n';
    else text_devices();
    std::cout.flush();
    if (!std::cout) throw Failure{"write error on stdout", kExitIo};
    return;
  }
  const bool all = !o.formats && !o.kernels && !o.backends;
  if (o.json) {
    nlohmann::json j = nlohmann::json::object();
    if (all || o.formats) j["formats"] = json_formats();
    if (all || o.kernels) j["kernels"] = json_kernels();
    if (all || o.backends) j["backends"] = json_backends();
    std::cout << j.dump(2) << '\n';
  } else {
    bool first = true;
    auto section = [&](bool on, void (*print)()) {
      if (!on) return;
      if (!first) std::cout << '\n';
      first = false;
      print();
    };
    section(all || o.formats, text_formats);
    section(all || o.kernels, text_kernels);
    section(all || o.backends, text_backends);
  }
  std::cout.flush();
  if (!std::cout) throw Failure{"write error on stdout", kExitIo};
}

}  // namespace

// Columns sized to their widest cell, two spaces apart; columns from left_cols on, except
// the last, are right-aligned (numbers); the last column is not padded.
void print_table(const std::vector<std::vector<std::string>>& rows, size_t left_cols) {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.resize(c + 1, 0);
      w[c] = std::max(w[c], r[c].size());
    }
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const bool last = c + 1 == r.size();
      const std::string pad(w[c] - r[c].size(), ' ');
      line += c < left_cols || last ? r[c] + (last ? "" : pad) : pad + r[c];
      if (!last) line += "  ";
    }
    std::cout << line << '\n';
  }
}

void add_list(CLI::App& app) {
  auto opt = std::make_shared<ListOptions>();
  CLI::App* sub = app.add_subcommand(
      "list", "List the registered formats, kernels and backends of this build (all three by default).");
  auto* f = sub->add_flag("--formats", opt->formats, "Only the formats: GGML type id, block layout, bits per weight, source");
  auto* k = sub->add_flag("--kernels", opt->kernels,
                          "Only the kernels: op, format, backend, activation quantization, output type, tile");
  auto* b = sub->add_flag("--backends", opt->backends, "Only the backends and whether this build has them");
  auto* d = sub->add_flag("--devices", opt->devices,
                          "Only the GPU devices of each backend, indexed as ctest's resource allocation and "
                          "QGATE_<BACKEND>_DEVICE select them");
  f->excludes(k)->excludes(b)->excludes(d);
  k->excludes(b)->excludes(d);
  b->excludes(d);
  sub->add_flag("--json", opt->json, "Machine-readable JSON instead of tables");
  auto* spec = sub->add_flag("--ctest-resource-spec", opt->resource_spec,
                             "With --devices: print a CTest resource spec file of this machine's devices, for "
                             "ctest --resource-spec-file (README: several GPUs)")
                   ->needs(d);
  sub->add_option("--slots", opt->slots, "With --ctest-resource-spec: test entries that may share one device at once")
      ->check(CLI::Range(1, 64))
      ->needs(spec);
  sub->callback([opt] { run_list(*opt); });
}

}  // namespace qgate::cli
