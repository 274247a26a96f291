// The CUDA runtime: one device per process (ctest's resource allocation or QGATE_CUDA_DEVICE
// picks one by index or name substring, backends/device_select.hpp; the choice is printed by
// `qgate list --backends`), one stream every launch goes to, device buffers, the guarded
// output mirror, and graph capture / replay.
// No driver, no device, a bad QGATE_CUDA_DEVICE: instance() returns nullptr and says why,
// and every CUDA test reports SKIPPED with that reason.
// A plain C++ interface: callers never see a vendor header (backends/cuda/vendor.cuh).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qgate {
class GuardedBuffer;
}

namespace qgate::cu {

struct DeviceInfo {
  int index = -1, count = 0;
  std::vector<std::string> devices;  // every CUDA device's name, in enumeration order
  std::string name;
  int cc_major = 0, cc_minor = 0, sms = 0, warp = 0;
  size_t memory = 0;
  int driver = 0, runtime = 0;  // versions, e.g. 13000
  std::string describe() const;
};

class Runtime {
 public:
  static Runtime* instance(std::string& why_not);
  const DeviceInfo& info() const { return info_; }
  void* stream() const { return stream_; }  // the vendor stream handle
  // Waits for the stream; "" or "<what>: <error name>: <message>". A launch error (bad
  // configuration) is collected too, so call it after every launch sequence.
  std::string sync(const char* what) const;
  // After a launch: the launch error, if any, without waiting.
  std::string launch_error(const char* what) const;

 private:
  Runtime() = default;
  DeviceInfo info_;
  void* stream_ = nullptr;
  friend struct RuntimeBuilder;
};

// Device memory owned by one object (moved, never copied).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  ~DeviceBuffer();
  std::string alloc(size_t bytes);  // "" or why not
  // Stream-ordered copies; they complete before the next sync().
  std::string upload(const void* src, size_t bytes, size_t offset = 0);
  std::string download(void* dst, size_t bytes, size_t offset = 0) const;
  // alloc(bytes), then upload(src, bytes).
  std::string assign(const void* src, size_t bytes) {
    std::string e = alloc(bytes);
    return e.empty() ? upload(src, bytes) : e;
  }
  std::string fill(uint8_t byte, size_t bytes, size_t offset = 0);
  void* ptr() const { return ptr_; }
  uint8_t* bytes_ptr() const { return static_cast<uint8_t*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// The whole guarded region of a host GuardedBuffer (redzone, poisoned payload, redzone)
// mirrored on the device, with `slack` more guard bytes on each side, so a kernel that
// writes past the region damages nothing it does not own. finish() copies the region
// back (the verdict then sees the redzones and the poison as the device left them) and
// checks the slack: a write past the region is an error after every launch.
class GuardedMirror {
 public:
  std::string upload(GuardedBuffer& out, size_t slack);
  void* payload() const;  // device address of out.data()
  std::string finish(GuardedBuffer& out);

 private:
  DeviceBuffer buf_;
  size_t slack_ = 0, red_ = 0, region_ = 0;
};

// A stream capture replayed as a graph: begin() on the runtime's stream, the launches,
// end() instantiates; launch() replays (stream-ordered). Kernel arguments are baked at
// capture, exactly as CUDA graphs bake them: what must change per step is read from device memory.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();
  std::string begin(Runtime& rt);
  std::string end(Runtime& rt);
  std::string launch(Runtime& rt);
  bool ready() const { return exec_ != nullptr; }

 private:
  void* graph_ = nullptr;
  void* exec_ = nullptr;
};

}  // namespace qgate::cu
