// Reports of a gate run that people and CI systems read: JUnit XML (one testcase per
// kernel x property), a Markdown matrix (format x op x backend), and for every failing case
// a PNG heat map of |err|/bound over the output. See docs/REPORTS.md.
#pragma once
#include <string>
#include <vector>

#include "properties/gate_run.hpp"

namespace qgate::report {

struct Context {
  std::string command;  // the command line that produced the run (shown in the Markdown)
  std::string input;    // "generated cases" or "GGUF m.gguf tensor blk.0.ffn_down.weight rows 0..11"
  uint64_t seed = 0;
};

struct Written {
  std::string junit, markdown;
  std::vector<std::string> heatmaps;
};

// Writes DIR/junit.xml, DIR/matrix.md and DIR/heatmaps/<kernel>.<property>.png (creating
// DIR). Returns "" or the reason (I/O). A failing case whose heat map cannot be drawn (the
// kernel refused it on the second run) is described in the Markdown instead.
std::string write_report(const std::string& dir, const GateReport& rep, const Context& ctx, Written& out);

// The pieces, for tests and other front ends.
std::string junit_xml(const GateReport& rep, const Context& ctx, const std::vector<std::string>& heatmap_of_failure);
std::string markdown(const GateReport& rep, const Context& ctx, const std::vector<std::string>& heatmap_of_failure,
                     const std::vector<std::string>& heatmap_notes);

}  // namespace qgate::report
