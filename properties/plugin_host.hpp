// Kernels from plugins (plugin/qgate_plugin.h, docs/PLUGINS.md): each declared kernel
// becomes a KernelInfo that the gate runs like a registered one. Plugin code never runs
// in qgate's process: the library is loaded in a forked child to read its table, and each
// kernel's launches run in a session process of its own (properties/plugin_session.hpp),
// under a watchdog. A plugin that does not load, a descriptor qgate cannot map, a launch
// that crashes, exits or never returns becomes that kernel's failure with the reason.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel.hpp"
#include "properties/shell_quote.hpp"
#include "properties/gate_run.hpp"
#include "properties/plugin_library.hpp"

namespace qgate {

struct PluginKernel;  // plugin_host.cpp: where a plugin kernel lives and what became of it

class PluginHost {
 public:
  explicit PluginHost(double timeout_s = 10.0);
  ~PluginHost();
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // Loads one library (in a child), handing a version 2 plugin `args` as its configuration.
  // Its kernels are added to kernels(); whatever cannot be gated (the library, or single
  // descriptors) is added to unloaded() with the reason.
  void load(const std::string& path, const PluginArgs& args = {});

  const std::vector<const KernelInfo*>& kernels() const { return kernels_; }
  const std::vector<std::pair<std::string, std::string>>& unloaded() const { return unloaded_; }
  double timeout_s() const { return timeout_s_; }
  bool owns(const KernelInfo& k) const;

  // After the gate: repro lines that name the plugin, and the runs of a kernel that timed
  // out (it is not run again after a hang) say so instead of the shrinker's last case.
  void annotate(GateReport& rep) const;
  // One line per plugin kernel: PASS/FAIL/skipped with the first failing property and why,
  // then one line per thing that could not be gated.
  std::string verdicts(const GateReport& rep) const;

 private:
  double timeout_s_;
  std::deque<PluginKernel> state_;
  std::deque<KernelInfo> infos_;
  std::vector<const KernelInfo*> kernels_;
  std::vector<std::pair<std::string, std::string>> unloaded_;
};

// Starts `<the session program> args...` (PluginSession::set_program: qgate itself) with the
// write end of a pipe as its fd 3 and waits for it under a watchdog. A fresh process, not a
// fork: a plugin that opens a GPU (ggml-vulkan on NVIDIA's driver aborts in a forked child
// of a process that has opened Vulkan) finds no driver state of qgate's. Returns "" with
// everything the child wrote in `payload`, or why the child produced no result ("killed by
// SIGSEGV", "timed out after 10 s", "exited with status 3").
std::string run_in_child(double timeout_s, const std::vector<std::string>& args, std::string& payload);

// The table reader's process (qgate __plugin-table FD LIBRARY [KEY VALUE]...): loads the
// library and writes its kernel table to FD. Returns the exit status.
int plugin_table_main(int argc, char** argv);

// qgate bench: one launch of plugin matmul kernel k at M = 1 that computes y `repeats` times
// from copies of w (qgate_plugin_v2_call::repeats); ns receives the kernel's own timing of
// those computations, or -1 where it does not time itself. "" or why the launch failed.
std::string plugin_bench(const KernelInfo& k, const QTensor& w, const float* x, int64_t repeats, double& ns);

}  // namespace qgate
