#include "properties/plugin_library.hpp"

#include <dlfcn.h>

#include <deque>

namespace qgate {

namespace {
constexpr size_t kMaxKernels = 4096;

// The configuration handed to version 2 entry points: it must outlive the library, which
// stays loaded for the life of the child.
struct ConfigStore {
  std::deque<std::string> strings;
  std::vector<const char*> keys, values;
  qgate_plugin_v2_config config{};
};
}  // namespace

PluginLibrary PluginLibrary::open(const std::string& path, const PluginArgs& args) {
  PluginLibrary r;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    r.status = no_library, r.message = e ? e : "dlopen failed";
    return r;
  }
  dlerror();
  if (auto get2 = reinterpret_cast<qgate_plugin_v2_get_fn>(dlsym(h, QGATE_PLUGIN_V2_ENTRY))) {
    static ConfigStore store;  // one library per child process
    for (const auto& [k, v] : args) {
      store.keys.push_back(store.strings.emplace_back(k).c_str());
      store.values.push_back(store.strings.emplace_back(v).c_str());
    }
    store.config = {sizeof(qgate_plugin_v2_config), static_cast<uint32_t>(args.size()), store.keys.data(),
                    store.values.data()};
    r.config = &store.config;
    char msg[1024] = {};
    const qgate_plugin_v2_library* lib = get2(QGATE_PLUGIN_V2_ABI_VERSION, r.config, msg, sizeof msg);
    msg[sizeof msg - 1] = 0;
    if (!lib) {
      r.status = refused, r.message = msg[0] ? msg : "qgate_plugin_v2_get returned NULL without a message";
      return r;
    }
    if (lib->abi_version != QGATE_PLUGIN_V2_ABI_VERSION) {
      r.status = abi_mismatch, r.version = lib->abi_version;
      return r;
    }
    if (lib->size < sizeof(qgate_plugin_v2_library)) {
      r.status = bad_table, r.message = "the library struct is smaller than version 2's (size " + std::to_string(lib->size) + ")";
      return r;
    }
    if (lib->count > kMaxKernels || (lib->count > 0 && !lib->kernels)) {
      r.status = bad_table;
      r.message = lib->count > kMaxKernels ? "more than 4096 kernels" : "a null table with a non-zero count";
      return r;
    }
    r.abi = 2, r.v2 = lib, r.count = lib->count;
    return r;
  }
  auto get = reinterpret_cast<qgate_plugin_get_fn>(dlsym(h, QGATE_PLUGIN_ENTRY));
  if (!get) {
    r.status = no_symbol, r.message = std::string(QGATE_PLUGIN_V2_ENTRY) + " or " + QGATE_PLUGIN_ENTRY;
    return r;
  }
  const qgate_plugin_kernel* table = nullptr;
  size_t count = 0;
  const uint32_t v = get(QGATE_PLUGIN_ABI_VERSION, &table, &count);
  if (v != QGATE_PLUGIN_ABI_VERSION) {
    r.status = abi_mismatch, r.version = v;
    return r;
  }
  if (count > kMaxKernels || (count > 0 && !table)) {
    r.status = bad_table;
    r.message = count > kMaxKernels ? "more than 4096 kernels" : "a null table with a non-zero count";
    return r;
  }
  r.abi = 1, r.v1 = table, r.count = count;
  return r;
}

}  // namespace qgate
