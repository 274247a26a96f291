#include "backends/cuda/cuda_runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/device_select.hpp"
#include "core/guarded.hpp"
#include "backends/cuda/vendor.cuh"

namespace qgate::cu {
namespace {

std::string err(const char* what, gpuError_t e) {
  return std::string(what) + ": " + gpuGetErrorName(e) + ": " + gpuGetErrorString(e);
}
gpuStream_t S(const Runtime& rt) { return static_cast<gpuStream_t>(rt.stream()); }
gpuStream_t S(std::string& why) {
  Runtime* rt = Runtime::instance(why);
  return rt ? static_cast<gpuStream_t>(rt->stream()) : nullptr;
}

// Launched once at start-up: proves this build's device code runs on the chosen device
// (an sm_90 build on an older GPU fails here, not in every test).
__global__ void probe_kernel(int* out) { *out = 0x5eed; }

}  // namespace

std::string DeviceInfo::describe() const {
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s (device %d of %d), sm_%d%d, %d SMs, %.1f GiB, warp %d, driver %d.%d, runtime %d.%d",
                name.c_str(), index, count, cc_major, cc_minor, sms, static_cast<double>(memory) / (1ull << 30), warp,
                driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
  return buf;
}

struct RuntimeBuilder {
  static Runtime* build(std::string& why) {
    auto rt = std::unique_ptr<Runtime>(new Runtime());
    DeviceInfo& I = rt->info_;
    gpuRuntimeGetVersion(&I.runtime);
    if (gpuError_t e = gpuDriverGetVersion(&I.driver); e != gpuSuccess || I.driver == 0) {
      why = "no CUDA driver on this machine (libcuda not found or not loadable)";
      return nullptr;
    }
    if (gpuError_t e = gpuGetDeviceCount(&I.count); e != gpuSuccess) {
      why = e == gpuErrorNoDevice ? "no CUDA device on this machine (" + err("cudaGetDeviceCount", e) + ")"
                                  : "no usable CUDA device (" + err("cudaGetDeviceCount", e) + ")";
      gpuGetLastError();
      return nullptr;
    }
    if (I.count == 0) {
      why = "no CUDA device on this machine (cudaGetDeviceCount = 0)";
      return nullptr;
    }
    std::vector<gpuDeviceProp> props(static_cast<size_t>(I.count));
    for (int d = 0; d < I.count; ++d) {
      if (gpuError_t e = gpuGetDeviceProperties(&props[d], d); e != gpuSuccess) {
        why = err("cudaGetDeviceProperties", e);
        return nullptr;
      }
      I.devices.emplace_back(props[d].name);
    }
    const int pick = pick_device("cuda", I.devices, why);
    if (pick < 0) return nullptr;
    const gpuDeviceProp& p = props[pick];
    I.index = pick;
    I.name = p.name;
    I.cc_major = p.major;
    I.cc_minor = p.minor;
    I.sms = p.multiProcessorCount;
    I.warp = p.warpSize;
    I.memory = p.totalGlobalMem;
    if (gpuError_t e = gpuSetDevice(pick); e != gpuSuccess) {
      why = err("cudaSetDevice", e);
      return nullptr;
    }
    gpuStream_t s = nullptr;
    if (gpuError_t e = gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking); e != gpuSuccess) {
      why = err("cudaStreamCreate", e) + " on " + I.name;
      return nullptr;
    }
    rt->stream_ = s;
    int* d = nullptr;
    int got = 0;
    if (gpuError_t e = gpuMalloc(reinterpret_cast<void**>(&d), sizeof(int)); e != gpuSuccess) {
      why = err("cudaMalloc", e) + " on " + I.name;
      return nullptr;
    }
    probe_kernel<<<1, 1, 0, s>>>(d);
    gpuError_t e = gpuGetLastError();
    if (e == gpuSuccess) e = gpuMemcpyAsync(&got, d, sizeof(int), gpuMemcpyDeviceToHost, s);
    if (e == gpuSuccess) e = gpuStreamSynchronize(s);
    gpuFree(d);
    if (e != gpuSuccess || got != 0x5eed) {
      why = "this build's device code does not run on " + I.name + " (sm_" + std::to_string(p.major) +
            std::to_string(p.minor) + "): " + (e != gpuSuccess ? err("probe kernel", e) : "probe kernel wrote nothing");
      return nullptr;
    }
    return rt.release();
  }
};

Runtime* Runtime::instance(std::string& why_not) { return process_runtime<RuntimeBuilder>(why_not); }

std::string Runtime::sync(const char* what) const {
  gpuError_t e = gpuGetLastError();
  if (e == gpuSuccess) e = gpuStreamSynchronize(S(*this));
  return e == gpuSuccess ? std::string() : err(what, e);
}

std::string Runtime::launch_error(const char* what) const {
  const gpuError_t e = gpuGetLastError();
  return e == gpuSuccess ? std::string() : err(what, e);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) gpuFree(ptr_);
}

std::string DeviceBuffer::alloc(size_t bytes) {
  if (ptr_) gpuFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  if (gpuError_t e = gpuMalloc(&ptr_, bytes ? bytes : 16); e != gpuSuccess) {
    ptr_ = nullptr;
    return err(("cudaMalloc(" + std::to_string(bytes) + " bytes)").c_str(), e);
  }
  bytes_ = bytes;
  return {};
}

std::string DeviceBuffer::upload(const void* src, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_) return "upload past the end of a device buffer";
  if (!bytes) return {};
  std::string why;
  gpuStream_t s = S(why);
  if (gpuError_t e = gpuMemcpyAsync(bytes_ptr() + offset, src, bytes, gpuMemcpyHostToDevice, s); e != gpuSuccess)
    return err("cudaMemcpyAsync (upload)", e);
  return {};
}

std::string DeviceBuffer::download(void* dst, size_t bytes, size_t offset) const {
  if (offset + bytes > bytes_) return "download past the end of a device buffer";
  if (!bytes) return {};
  std::string why;
  gpuStream_t s = S(why);
  if (gpuError_t e = gpuMemcpyAsync(dst, bytes_ptr() + offset, bytes, gpuMemcpyDeviceToHost, s); e != gpuSuccess)
    return err("cudaMemcpyAsync (download)", e);
  return {};
}

std::string DeviceBuffer::fill(uint8_t byte, size_t bytes, size_t offset) {
  if (offset + bytes > bytes_) return "fill past the end of a device buffer";
  std::string why;
  if (gpuError_t e = gpuMemsetAsync(bytes_ptr() + offset, byte, bytes, S(why)); e != gpuSuccess)
    return err("cudaMemsetAsync", e);
  return {};
}

std::string GuardedMirror::upload(GuardedBuffer& out, size_t slack) {
  slack_ = (slack + 255) / 256 * 256;  // keeps the region's 16-byte alignment (and more)
  red_ = out.redzone();
  region_ = out.region_bytes();
  if (auto e = buf_.alloc(region_ + 2 * slack_); !e.empty()) return e;
  if (auto e = buf_.fill(kRedzoneByte, slack_, 0); !e.empty()) return e;
  if (auto e = buf_.fill(kRedzoneByte, slack_, slack_ + region_); !e.empty()) return e;
  return buf_.upload(out.region(), region_, slack_);
}

void* GuardedMirror::payload() const { return buf_.bytes_ptr() + slack_ + red_; }

std::string GuardedMirror::finish(GuardedBuffer& out) {
  std::string why;
  Runtime* rt = Runtime::instance(why);
  if (!rt) return why;
  std::vector<uint8_t> before(slack_), after(slack_);
  if (auto e = buf_.download(out.region(), region_, slack_); !e.empty()) return e;
  if (auto e = buf_.download(before.data(), slack_, 0); !e.empty()) return e;
  if (auto e = buf_.download(after.data(), slack_, slack_ + region_); !e.empty()) return e;
  if (auto e = rt->sync("kernel or copy"); !e.empty()) return e;
  for (size_t i = 0; i < slack_; ++i)
    if (before[i] != kRedzoneByte)
      return "device write before the guarded region (" + std::to_string(slack_ - i) + " bytes before its redzone)";
  for (size_t i = slack_; i-- > 0;)
    if (after[i] != kRedzoneByte)
      return "device write past the guarded region (up to " + std::to_string(i + 1) + " bytes after its redzone)";
  return {};
}

Graph::~Graph() {
  if (exec_) gpuGraphExecDestroy(static_cast<gpuGraphExec_t>(exec_));
  if (graph_) gpuGraphDestroy(static_cast<gpuGraph_t>(graph_));
}

std::string Graph::begin(Runtime& rt) {
  if (gpuError_t e = gpuStreamBeginCapture(S(rt), gpuStreamCaptureModeThreadLocal); e != gpuSuccess)
    return err("cudaStreamBeginCapture", e);
  return {};
}

std::string Graph::end(Runtime& rt) {
  gpuGraph_t g = nullptr;
  if (gpuError_t e = gpuStreamEndCapture(S(rt), &g); e != gpuSuccess) return err("cudaStreamEndCapture", e);
  graph_ = g;
  gpuGraphExec_t x = nullptr;
  if (gpuError_t e = gpuGraphInstantiate(&x, g); e != gpuSuccess) return err("cudaGraphInstantiate", e);
  exec_ = x;
  return {};
}

std::string Graph::launch(Runtime& rt) {
  if (!exec_) return "graph launched before it was captured";
  if (gpuError_t e = gpuGraphLaunch(static_cast<gpuGraphExec_t>(exec_), S(rt)); e != gpuSuccess)
    return err("cudaGraphLaunch", e);
  return {};
}

}  // namespace qgate::cu
