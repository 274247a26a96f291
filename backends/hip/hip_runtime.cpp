#include "backends/hip/hip_runtime.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

#include "backends/device_select.hpp"

#ifndef QGATE_HIP_CODE_OBJECT_DIR
#define QGATE_HIP_CODE_OBJECT_DIR ""
#endif

namespace qgate::hip {
namespace {

// The entry points used, typed by the header's own declarations (decltype), resolved by name.
struct Api {
  void* lib = nullptr;
#define QGATE_HIP_FN(name) decltype(&::name) name = nullptr;
#define QGATE_HIP_FNS(X)                                                                                          \
  X(hipGetErrorName) X(hipGetErrorString) X(hipRuntimeGetVersion) X(hipGetDeviceCount) X(hipGetDeviceProperties) \
  X(hipSetDevice) X(hipFree) X(hipMemcpy) X(hipDeviceSynchronize) X(hipModuleLoad)                  \
  X(hipModuleGetFunction) X(hipModuleLaunchKernel) X(hipGetLastError)
  QGATE_HIP_FNS(QGATE_HIP_FN)
#undef QGATE_HIP_FN
  // The C++ header adds template overloads of hipMalloc: the C entry point, by its type.
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
};

const Api* api(std::string& why) {
  static std::string err;
  static Api* a = [] {
    auto* x = new Api();  // process lifetime
    const char* want = std::getenv("QGATE_HIP_LIBRARY");
    const char* name = want && *want ? want : "libamdhip64.so.5";
    x->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!x->lib) {
      const char* e = dlerror();
      err = std::string("no HIP runtime on this machine (dlopen ") + name + ": " + (e ? e : "failed") +
            "; ROCm 5's libamdhip64, Debian: libamdhip64-5)";
      return static_cast<Api*>(nullptr);
    }
#define QGATE_HIP_FN(fn)                                                              \
  x->fn = reinterpret_cast<decltype(x->fn)>(dlsym(x->lib, #fn));                      \
  if (!x->fn) {                                                                       \
    err = std::string(name) + " has no symbol " #fn " (not the ROCm 5 HIP runtime)"; \
    return static_cast<Api*>(nullptr);                                                \
  }
    QGATE_HIP_FNS(QGATE_HIP_FN)
    QGATE_HIP_FN(hipMalloc)
#undef QGATE_HIP_FN
    return x;
  }();
  why = err;
  return a;
}

std::string err(const Api& a, const char* what, hipError_t e) {
  return std::string(what) + ": " + a.hipGetErrorName(e) + ": " + a.hipGetErrorString(e);
}

const Api& A() {
  std::string why;
  return *api(why);  // only called once instance() succeeded
}

}  // namespace

std::string code_object_root() {
  const char* env = std::getenv("QGATE_HIP_CODE_OBJECTS");
  return env && *env ? env : QGATE_HIP_CODE_OBJECT_DIR;
}

std::string DeviceInfo::describe() const {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%s (device %d of %d), %s, %d CUs, wave %d, %.1f GiB, HIP runtime %d, code objects %s",
                name.c_str(), index, count, arch.c_str(), cus, wave, static_cast<double>(memory) / (1ull << 30), runtime,
                code_objects.c_str());
  return buf;
}

struct RuntimeBuilder {
  static Runtime* build(std::string& why) {
    const Api* a = api(why);
    if (!a) return nullptr;
    auto rt = std::unique_ptr<Runtime>(new Runtime());
    DeviceInfo& I = rt->info_;
    (void)a->hipRuntimeGetVersion(&I.runtime);
    if (hipError_t e = a->hipGetDeviceCount(&I.count); e != hipSuccess || I.count == 0) {
      why = e == hipErrorNoDevice || I.count == 0 ? "no AMD GPU (HIP device) on this machine (" + err(*a, "hipGetDeviceCount", e) + ")"
                                                  : "no usable HIP device (" + err(*a, "hipGetDeviceCount", e) + ")";
      (void)a->hipGetLastError();
      return nullptr;
    }
    std::vector<hipDeviceProp_t> props(static_cast<size_t>(I.count));
    for (int d = 0; d < I.count; ++d) {
      if (hipError_t e = a->hipGetDeviceProperties(&props[d], d); e != hipSuccess) {
        why = err(*a, "hipGetDeviceProperties", e);
        return nullptr;
      }
      I.devices.push_back(std::string(props[d].name) + " " + props[d].gcnArchName);  // matched by name or arch
    }
    const int pick = pick_device("hip", I.devices, why);
    if (pick < 0) return nullptr;
    const hipDeviceProp_t& p = props[pick];
    I.index = pick;
    I.name = p.name;
    I.arch = std::string(p.gcnArchName).substr(0, std::string(p.gcnArchName).find(':'));
    I.cus = p.multiProcessorCount;
    I.wave = p.warpSize;
    I.memory = p.totalGlobalMem;
    I.code_objects = (std::filesystem::path(code_object_root()) / I.arch).string();
    if (!std::filesystem::is_directory(I.code_objects)) {
      why = I.name + " is " + I.arch + ", and this build has no code objects for it (" + I.code_objects +
            "; kernels/hip/hip.cmake: QGATE_HIP_HIPCC_TARGETS / QGATE_HIP_CLANG_TARGETS)";
      return nullptr;
    }
    if (hipError_t e = a->hipSetDevice(pick); e != hipSuccess) {
      why = err(*a, "hipSetDevice", e);
      return nullptr;
    }
    // Proves this build's code objects load on this device and its runtime (the code-object
    // version included) before any test relies on them.
    void* m = nullptr;
    if (auto e = rt->load_module("quantize_act", &m); !e.empty()) {
      why = "this build's code objects do not load on " + I.name + " (" + I.arch + "): " + e;
      return nullptr;
    }
    return rt.release();
  }
};

Runtime* Runtime::instance(std::string& why_not) { return process_runtime<RuntimeBuilder>(why_not); }

std::string Runtime::load_module(const std::string& source_or_path, void** module) const {
  std::string path = source_or_path;
  if (path.find('/') == std::string::npos) path = (std::filesystem::path(info_.code_objects) / (path + ".co")).string();
  hipModule_t m = nullptr;
  if (hipError_t e = A().hipModuleLoad(&m, path.c_str()); e != hipSuccess) return err(A(), ("hipModuleLoad " + path).c_str(), e);
  *module = m;
  return {};
}

std::string Runtime::function(void* module, const std::string& symbol, void** fn) const {
  hipFunction_t f = nullptr;
  if (hipError_t e = A().hipModuleGetFunction(&f, static_cast<hipModule_t>(module), symbol.c_str()); e != hipSuccess)
    return err(A(), ("hipModuleGetFunction " + symbol).c_str(), e);
  *fn = f;
  return {};
}

std::string Runtime::launch(void* fn, unsigned grid_x, unsigned block_x, void** args) const {
  if (hipError_t e = A().hipModuleLaunchKernel(static_cast<hipFunction_t>(fn), grid_x, 1, 1, block_x, 1, 1, 0, nullptr,
                                               args, nullptr);
      e != hipSuccess)
    return err(A(), "hipModuleLaunchKernel", e);
  return {};
}

std::string Runtime::sync(const char* what) const {
  if (hipError_t e = A().hipDeviceSynchronize(); e != hipSuccess) return err(A(), what, e);
  return {};
}

std::string Runtime::alloc(size_t bytes, void** ptr) const {
  if (hipError_t e = A().hipMalloc(ptr, bytes ? bytes : 16); e != hipSuccess) return err(A(), "hipMalloc", e);
  return {};
}

void Runtime::free(void* ptr) const {
  if (ptr) (void)A().hipFree(ptr);
}

std::string Runtime::upload(void* dst, const void* src, size_t bytes) const {
  if (hipError_t e = A().hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice); e != hipSuccess) return err(A(), "hipMemcpy (upload)", e);
  return {};
}

std::string Runtime::download(void* dst, const void* src, size_t bytes) const {
  if (hipError_t e = A().hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost); e != hipSuccess)
    return err(A(), "hipMemcpy (download)", e);
  return {};
}

}  // namespace qgate::hip
