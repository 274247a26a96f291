// In a child process: a plugin library opened and its kernel table read, either ABI version
// (plugin/qgate_plugin.h). Used by the child that reads the table for qgate and by the
// session processes that launch one kernel many times.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "plugin/qgate_plugin.h"

namespace qgate {

using PluginArgs = std::vector<std::pair<std::string, std::string>>;

struct PluginLibrary {
  enum Status : uint8_t { ok = 0, no_library = 1, no_symbol = 2, abi_mismatch = 3, bad_table = 4, refused = 5 };
  Status status = ok;
  std::string message;   // no_library: dlerror; no_symbol: the symbols; bad_table / refused: why
  uint32_t version = 0;  // abi_mismatch: the version the plugin returned
  int abi = 0;           // 1 or 2 once open
  const qgate_plugin_kernel* v1 = nullptr;
  const qgate_plugin_v2_library* v2 = nullptr;
  size_t count = 0;
  const qgate_plugin_v2_config* config = nullptr;  // what version 2 entry points receive

  // Loads `path` (an absolute path) with `args` as the version 2 configuration.
  static PluginLibrary open(const std::string& path, const PluginArgs& args);
};

}  // namespace qgate
