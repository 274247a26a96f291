#include "backends/raw_device.hpp"

#include <algorithm>
#include <list>
#include <vector>

#include "backends/runtimes.hpp"

namespace qgate {
namespace {

#ifdef QGATE_HAVE_CUDA
class CudaDevice final : public RawDevice {
 public:
  explicit CudaDevice(cu::Runtime& rt) : rt_(rt) {}
  std::string describe() const override { return rt_.info().describe(); }
  void* stream() const override { return rt_.stream(); }
  std::string alloc(size_t bytes, void** ptr) override {
    cu::DeviceBuffer& b = bufs_.emplace_back();
    if (std::string e = b.alloc(bytes); !e.empty()) {
      bufs_.pop_back();
      return e;
    }
    *ptr = b.ptr();
    return {};
  }
  void release(void* ptr) override {
    bufs_.remove_if([&](const cu::DeviceBuffer& b) { return b.ptr() == ptr; });
  }
  std::string upload(void* dst, const void* src, size_t bytes) override {
    cu::DeviceBuffer* b = owner(dst);
    return b ? b->upload(src, bytes, static_cast<size_t>(static_cast<uint8_t*>(dst) - b->bytes_ptr()))
             : "upload: not qgate's device memory";
  }
  std::string download(void* dst, const void* src, size_t bytes) override {
    cu::DeviceBuffer* b = owner(src);
    return b ? b->download(dst, bytes, static_cast<size_t>(static_cast<const uint8_t*>(src) - b->bytes_ptr()))
             : "download: not qgate's device memory";
  }
  std::string sync(const char* what) override { return rt_.sync(what); }

 private:
  cu::DeviceBuffer* owner(const void* p) {
    for (cu::DeviceBuffer& b : bufs_)
      if (p >= b.ptr() && static_cast<const uint8_t*>(p) < b.bytes_ptr() + b.bytes()) return &b;
    return nullptr;
  }
  cu::Runtime& rt_;
  std::list<cu::DeviceBuffer> bufs_;  // DeviceBuffer does not move-assign
};
#endif

#ifdef QGATE_HAVE_HIP_RUNTIME
class HipDevice final : public RawDevice {
 public:
  explicit HipDevice(hip::Runtime& rt) : rt_(rt) {}
  ~HipDevice() override {
    for (void* p : ptrs_) rt_.free(p);
  }
  std::string describe() const override { return rt_.info().describe(); }
  void* stream() const override { return nullptr; }
  std::string alloc(size_t bytes, void** ptr) override {
    if (std::string e = rt_.alloc(bytes, ptr); !e.empty()) return e;
    ptrs_.push_back(*ptr);
    return {};
  }
  void release(void* ptr) override {
    if (std::erase(ptrs_, ptr)) rt_.free(ptr);
  }
  std::string upload(void* dst, const void* src, size_t bytes) override { return rt_.upload(dst, src, bytes); }
  std::string download(void* dst, const void* src, size_t bytes) override { return rt_.download(dst, src, bytes); }
  std::string sync(const char* what) override { return rt_.sync(what); }

 private:
  hip::Runtime& rt_;
  std::vector<void*> ptrs_;
};
#endif

}  // namespace

std::unique_ptr<RawDevice> RawDevice::open(BackendId b, std::string& why) {
  switch (b) {
    case BackendId::cuda: {
#ifdef QGATE_HAVE_CUDA
      if (cu::Runtime* rt = cu::Runtime::instance(why)) return std::make_unique<CudaDevice>(*rt);
      return nullptr;
#else
      why = std::string("not built in this configuration: ") + QGATE_CUDA_WHY;
      return nullptr;
#endif
    }
    case BackendId::hip: {
#ifdef QGATE_HAVE_HIP_RUNTIME
      if (hip::Runtime* rt = hip::Runtime::instance(why)) return std::make_unique<HipDevice>(*rt);
      return nullptr;
#else
      why = std::string("not built in this configuration: ") + QGATE_HIP_WHY;
      return nullptr;
#endif
    }
    default: why = "no raw device memory on the " + std::string(backend_name(b)) + " backend"; return nullptr;
  }
}

}  // namespace qgate
