// The HIP runtime: one AMD device per process (ctest's resource allocation or
// QGATE_HIP_DEVICE picks one by index or name substring, backends/device_select.hpp), the
// code objects this build compiled for its architecture (<build>/kernels/hip/<gfx>/<source>.co,
// kernels/hip/hip.cmake) loaded as modules, device
// buffers and module launches.
// libamdhip64 is opened at run time (dlopen of ROCm 5's libamdhip64.so.5, the ABI of the
// Debian 12 headers this file compiles against), not linked at build time: a build linked
// to it could not even start where ROCm is absent (the CUDA machine, most CI), and Debian has
// no static libamdhip64 to link as the CUDA runtime is. No library, no device, no code object
// for the device's architecture: instance() returns nullptr and says why, and every HIP test
// reports SKIPPED with that reason. A plain C++ interface: callers never see a HIP header.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace qgate::hip {

struct DeviceInfo {
  int index = -1, count = 0;
  std::vector<std::string> devices;  // every HIP device as "name arch", in enumeration order
  std::string name, arch;  // arch: "gfx90a" (gcnArchName up to the first ':')
  int cus = 0, wave = 0;
  size_t memory = 0;
  int runtime = 0;
  std::string code_objects;  // the directory of this build's code objects for arch
  std::string describe() const;
};

class Runtime {
 public:
  static Runtime* instance(std::string& why_not);
  const DeviceInfo& info() const { return info_; }
  // "" or why not. A module is this build's <source>.co for the device's architecture, or a
  // code object at an explicit path.
  std::string load_module(const std::string& source_or_path, void** module) const;
  std::string function(void* module, const std::string& symbol, void** fn) const;
  // args: one pointer per kernel argument (hipModuleLaunchKernel's kernelParams).
  std::string launch(void* fn, unsigned grid_x, unsigned block_x, void** args) const;
  std::string sync(const char* what) const;
  std::string alloc(size_t bytes, void** ptr) const;
  void free(void* ptr) const;
  std::string upload(void* dst, const void* src, size_t bytes) const;
  std::string download(void* dst, const void* src, size_t bytes) const;

 private:
  Runtime() = default;
  DeviceInfo info_;
  friend struct RuntimeBuilder;
};

// The search list for libamdhip64 and the directory of code objects this build made; both
// fixed at configure time, overridable by QGATE_HIP_LIBRARY / QGATE_HIP_CODE_OBJECTS.
std::string code_object_root();

}  // namespace qgate::hip
