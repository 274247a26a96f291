// The main job: every registered kernel, on every backend, under every property that
// applies to it; and the result matrix (format x op x backend).
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "properties/catalog.hpp"

namespace qgate {

struct GateFilter {
  std::string backend, format, op, kernel, property;  // empty = all; kernel is a substring match
  bool matches(const KernelInfo& k) const;
};

struct KernelGate {
  const KernelInfo* kernel = nullptr;
  bool skipped = false;
  std::string skip_reason;
  std::vector<std::pair<const PropertyInfo*, PropertyRun>> runs;
  bool pass() const;
  double max_ratio() const;
};

struct GateReport {
  std::vector<KernelGate> kernels;
  // What could not be gated at all (a plugin that does not load, a descriptor qgate cannot
  // map: properties/plugin_host.hpp), as (what, why). Each one fails the run.
  std::vector<std::pair<std::string, std::string>> unloaded;
  bool pass() const;
};

// progress(i, n, kernel name) is called before each kernel (for a terminal progress line).
GateReport run_gate(const GateFilter& f, const RunOptions& opt,
                    const std::function<void(size_t, size_t, const std::string&)>& progress = {});
// The same over kernels that are not registered (plugin kernels), in the given order.
GateReport run_gate_kernels(std::span<const KernelInfo* const> kernels, const GateFilter& f, const RunOptions& opt,
                            const std::function<void(size_t, size_t, const std::string&)>& progress = {});

// The compact matrix: rows = format, columns = backend x op; cells PASS n/n (worst
// |err|/bound), FAIL n/n, skipped, or "-" (no kernel: not implemented on that backend).
std::string format_matrix(const GateReport& r);
// Every failing (kernel, property) with its verdict and one-line repro.
std::string format_failures(const GateReport& r);

}  // namespace qgate
