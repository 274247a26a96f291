// Device memory and a stream on the CUDA or HIP backend, for kernels qgate did not compile
// (plugins): raw device pointers in, raw pointers out. The backend runtimes own the device;
// this is their allocation and copy surface behind one interface.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "core/kernel.hpp"

namespace qgate {

class RawDevice {
 public:
  // nullptr and why when the backend cannot run here or hands out no raw memory (cpu, vulkan).
  static std::unique_ptr<RawDevice> open(BackendId b, std::string& why);
  virtual ~RawDevice() = default;
  virtual std::string describe() const = 0;
  virtual void* stream() const = 0;  // the vendor stream every launch goes to (HIP: the null stream)
  // Each returns "" or why not. Memory from alloc lives until release or the object's end.
  virtual std::string alloc(size_t bytes, void** ptr) = 0;
  virtual void release(void* ptr) = 0;
  virtual std::string upload(void* dst, const void* src, size_t bytes) = 0;
  virtual std::string download(void* dst, const void* src, size_t bytes) = 0;
  virtual std::string sync(const char* what) = 0;  // waits; collects launch errors
};

}  // namespace qgate
