// Probes: checks of a runtime behaviour rather than of one kernel's numbers. The replay
// probe captures a decode-step chain once and replays it for many steps with new inputs,
// diffing every step against eager execution bit for bit.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "core/kernel.hpp"

namespace qgate {

struct ProbeReport {
  bool skipped = false;  // backend not available: skip_reason says why
  bool pass = false;
  std::string summary;
};

struct ProbeInfo {
  std::string_view name;  // e.g. "replay"
  BackendId backend;
  std::string_view what;
  ProbeReport (*run)(int steps);
};

std::span<const ProbeInfo> all_probes();
const ProbeInfo* find_probe(std::string_view name, BackendId backend);
// "probe:<name>:<backend>" as a mutant target names a probe.
const ProbeInfo* probe_from_target(std::string_view target);

}  // namespace qgate
