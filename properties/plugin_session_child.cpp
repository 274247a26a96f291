// The session process (qgate __plugin-session FD, properties/plugin_session.hpp): loads one
// plugin kernel, opens its device, and runs every launch qgate sends until told to stop.
// Each launch's tensors become host copies (CPU), device memory (CUDA / HIP) or host-visible
// storage buffers (Vulkan); every output carries its guarded region and, on a device,
// kSlack more guard bytes each side, checked after the launch.
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/raw_device.hpp"
#include "properties/plugin_session.hpp"
#include "properties/plugin_wire.hpp"
#ifdef QGATE_HAVE_VULKAN
#include "backends/vulkan/vk_runtime.hpp"
#endif

namespace qgate {
namespace {

using namespace session_wire;
constexpr size_t kSlack = 4096;  // guard bytes beyond an output's region on a device
constexpr uint8_t kSlackByte = 0xA5;

// A tensor as the launch message carries it: input bytes, or an output's guarded region.
struct Tensor {
  Slot slot;
  bool output;
  size_t bytes, red;
  std::vector<uint8_t> data;  // input bytes, or the region (red + bytes + red); outputs come back here
};

qgate_plugin_v2_tensor* slot_of(qgate_plugin_v2_call& c, Slot s) {
  qgate_plugin_v2_tensor* slots[] = {&c.w,   &c.x,   &c.y,     &c.ids, &c.res, &c.norm_w,  &c.q,      &c.k_new,
                                     &c.v_new, &c.w_q, &c.w_k, &c.pos, &c.k_cache, &c.v_cache, &c.y2};
  return slots[static_cast<size_t>(s)];
}

// Guard bytes [0, pre) and [pre + n, total) of b untouched? Then the n bytes at pre go to out.
std::string take_checked(const uint8_t* b, size_t pre, size_t n, size_t total, uint8_t* out) {
  size_t past = 0;
  for (size_t i = 0; i < pre; ++i) past += b[i] != kSlackByte;
  for (size_t i = pre + n; i < total; ++i) past += b[i] != kSlackByte;
  if (past) return "wrote " + std::to_string(past) + " bytes past its guarded output regions on the device";
  std::memcpy(out, b + pre, n);
  return {};
}

struct Child {
  int fd;
  PluginLibrary lib;
  size_t index = 0;
  BackendId backend = BackendId::cpu;
  std::unique_ptr<RawDevice> dev;
#ifdef QGATE_HAVE_VULKAN
  vk::Runtime* vkrt = nullptr;
#endif
  qgate_plugin_v2_device device{};
  void* session = nullptr;

  void reply(uint8_t status, int32_t rc, const std::string& msg, const std::vector<Tensor>* outs = nullptr,
             double elapsed_ns = -1) {
    wire::Writer w;
    size_t total = 64 + msg.size();
    if (outs)
      for (const Tensor& t : *outs) total += t.data.size() + 8;
    w.b.reserve(total);
    w.put<uint8_t>(status);
    w.put<int32_t>(rc);
    w.text(msg);
    w.put<double>(elapsed_ns);
    if (outs)
      for (const Tensor& t : *outs)
        if (t.output) w.blob(t.data.data(), t.data.size());
    wire::send_message(fd, w.b);
  }

  std::string hello(wire::Reader& r) {
    const std::string path = r.text();
    index = static_cast<size_t>(r.get<uint64_t>());
    const std::string name = r.text();
    PluginArgs args(r.get<uint32_t>());
    for (auto& [k, v] : args) k = r.text(), v = r.text();
    backend = static_cast<BackendId>(r.get<int32_t>());
    if (!r.ok) return "a garbled start message";
    lib = PluginLibrary::open(path, args);
    if (lib.status != PluginLibrary::ok || index >= lib.count)
      return "the plugin's kernel table is not what it was when it was loaded";
    const char* kname = lib.abi == 2 ? lib.v2->kernels[index].name : lib.v1[index].name;
    if (!kname || strncmp(kname, name.c_str(), wire::kMaxString) != 0)
      return "the plugin's kernel table is not what it was when it was loaded";
    device.size = sizeof device;
    device.backend = static_cast<int32_t>(backend);
    if (backend == BackendId::cuda || backend == BackendId::hip) {
      std::string why;
      dev = RawDevice::open(backend, why);
      if (!dev) return "the session could not open the " + std::string(backend_name(backend)) + " device: " + why;
      device.stream = dev->stream();
    }
    if (backend == BackendId::vulkan) {
#ifdef QGATE_HAVE_VULKAN
      std::string why;
      vkrt = vk::Runtime::instance(why);
      if (!vkrt) return "the session could not open the Vulkan device: " + why;
      const vk::Runtime::Handles h = vkrt->handles();
      device.vk_instance = h.instance, device.vk_physical_device = h.physical_device, device.vk_device = h.device;
      device.vk_queue = h.queue, device.vk_queue_family = h.queue_family;
      device.vk_get_instance_proc_addr = h.get_instance_proc_addr;
#else
      return "the session could not open the Vulkan device: Vulkan is not built in this configuration";
#endif
    }
    if (lib.abi == 2 && lib.v2->init) {
      char msg[1024] = {};
      const int32_t rc = lib.v2->init(lib.config, &device, &session, msg, sizeof msg);
      msg[sizeof msg - 1] = 0;
      if (rc != 0) return "the plugin's init returned " + std::to_string(rc) + ": " + msg;
    }
    return {};
  }

  void launch(wire::Reader& r) {
    qgate_plugin_v2_call c{};
    c.size = sizeof c;
    c.op = r.get<int32_t>();
    for (int64_t* v : {&c.n, &c.k, &c.m, &c.experts, &c.top_k, &c.rows, &c.cols, &c.tokens, &c.n_head, &c.n_head_kv,
                       &c.head_dim, &c.kv_len, &c.kv_cap})
      *v = r.get<int64_t>();
    c.eps = r.get<float>(), c.rope_base = r.get<float>(), c.scale = r.get<float>();
    c.rope_mode = r.get<int32_t>();
    c.launch_index = r.get<uint64_t>();
    c.repeats = r.get<int64_t>();
    double elapsed_ns = -1;
    if (c.repeats > 0) c.elapsed_ns = &elapsed_ns;
    std::vector<Tensor> ts(r.get<uint32_t>());
    for (Tensor& t : ts) {
      t.slot = static_cast<Slot>(r.get<uint8_t>());
      t.output = r.get<uint8_t>() != 0;
      t.bytes = static_cast<size_t>(r.get<uint64_t>()), t.red = static_cast<size_t>(r.get<uint64_t>());
      size_t n = 0;
      const uint8_t* p = r.blob(n);
      if (!r.ok || t.slot >= Slot::count || n != (t.output ? t.bytes + 2 * t.red : t.bytes))
        return reply(kSessionError, 0, "a garbled launch message");
      t.data.assign(p, p + n);
    }
    if (!r.ok) return reply(kSessionError, 0, "a garbled launch message");
    c.device = &device;
    c.stream = device.stream;
    c.session = session;
    int32_t rc = 0;
    char msg[1024] = {};
    auto run = [&]() {
      if (lib.abi == 2) {
        const qgate_plugin_v2_kernel& k = lib.v2->kernels[index];
        rc = k.launch(k.user, &c, msg, sizeof msg);
      } else {
        const qgate_plugin_kernel& k = lib.v1[index];
        rc = k.launch(k.user, static_cast<const uint8_t*>(c.w.ptr), static_cast<const float*>(c.x.ptr), c.y.ptr, c.n,
                      c.k, c.m, c.stream, msg, sizeof msg);
      }
      msg[sizeof msg - 1] = 0;
    };
    std::string err;
    if (dev) err = run_device(c, ts, run);
#ifdef QGATE_HAVE_VULKAN
    else if (vkrt) err = run_vulkan(c, ts, run);
#endif
    else run_host(c, ts, run);
    if (rc != 0) return reply(kKernelError, rc, msg);
    if (!err.empty()) return reply(kSessionError, 0, err);
    reply(kOk, 0, "", &ts, elapsed_ns);
  }

  // CPU: fresh, 8-byte aligned host copies (the message buffer is only byte-aligned).
  template <class Run>
  void run_host(qgate_plugin_v2_call& c, std::vector<Tensor>& ts, Run& run) {
    std::vector<std::vector<uint64_t>> copies;
    for (Tensor& t : ts) {
      std::vector<uint64_t>& h = copies.emplace_back((t.data.size() + 7) / 8 + 1);
      std::memcpy(h.data(), t.data.data(), t.data.size());
      *slot_of(c, t.slot) = {reinterpret_cast<uint8_t*>(h.data()) + t.red, t.bytes, 0, 0};
    }
    run();
    for (size_t i = 0; i < ts.size(); ++i)
      if (ts[i].output) std::memcpy(ts[i].data.data(), copies[i].data(), ts[i].data.size());
  }

  // CUDA / HIP: device memory for every tensor; an output's region with kSlack guard bytes each side.
  template <class Run>
  std::string run_device(qgate_plugin_v2_call& c, std::vector<Tensor>& ts, Run& run) {
    std::vector<void*> bufs;
    auto done = [&](const std::string& why) {
      for (void* b : bufs) dev->release(b);
      return why;
    };
    std::vector<std::vector<uint8_t>> staged(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) {
      Tensor& t = ts[i];
      const size_t pre = t.output ? kSlack : 0;
      staged[i].assign(t.data.size() + 2 * pre, kSlackByte);
      std::memcpy(staged[i].data() + pre, t.data.data(), t.data.size());
      void* d = nullptr;
      if (std::string e = dev->alloc(std::max<size_t>(staged[i].size(), 1), &d); !e.empty())
        return done("device allocation: " + e);
      bufs.push_back(d);
      if (std::string e = dev->upload(d, staged[i].data(), staged[i].size()); !e.empty()) return done(e);
      *slot_of(c, t.slot) = {static_cast<uint8_t*>(d) + pre + t.red, t.bytes, 0, 0};
    }
    if (std::string e = dev->sync("uploading the inputs"); !e.empty()) return done(e);
    run();
    if (std::string s = dev->sync("the launch"); !s.empty()) return done("device error after the launch: " + s);
    for (size_t i = 0; i < ts.size(); ++i) {
      if (!ts[i].output) continue;
      if (std::string e = dev->download(staged[i].data(), bufs[i], staged[i].size()); !e.empty()) return done(e);
      if (std::string e = dev->sync("reading the output back"); !e.empty()) return done(e);
      if (std::string e = take_checked(staged[i].data(), kSlack, ts[i].data.size(), staged[i].size(), ts[i].data.data());
          !e.empty())
        return done(e);
    }
    return done({});
  }

#ifdef QGATE_HAVE_VULKAN
  // Vulkan: host-visible storage buffers, an output's region placed so its payload starts at a
  // multiple of 256 with kSlack or more guard bytes before it; the plugin records and submits
  // its own work to the queue, qgate waits for the queue to go idle.
  template <class Run>
  std::string run_vulkan(qgate_plugin_v2_call& c, std::vector<Tensor>& ts, Run& run) {
    auto round16 = [](size_t n) { return (std::max<size_t>(n, 1) + 15) / 16 * 16; };
    std::vector<vk::Buffer> bufs(ts.size());
    std::vector<size_t> pres(ts.size(), 0);
    auto done = [&](const std::string& why) {
      for (vk::Buffer& b : bufs)
        if (b.handle) vkrt->release(b);
      return why;
    };
    for (size_t i = 0; i < ts.size(); ++i) {
      Tensor& t = ts[i];
      pres[i] = t.output ? kSlack + (256 - (kSlack + t.red) % 256) % 256 : 0;
      bufs[i] = vkrt->alloc(round16(pres[i] + t.data.size() + (t.output ? kSlack : 0)));
      if (!bufs[i].map) return done("Vulkan buffer allocation failed");
      std::memset(bufs[i].map, kSlackByte, bufs[i].bytes);
      std::memcpy(static_cast<uint8_t*>(bufs[i].map) + pres[i], t.data.data(), t.data.size());
      *slot_of(c, t.slot) = {nullptr, t.bytes, vk::Runtime::buffer_handle(bufs[i]), pres[i] + t.red};
    }
    run();
    if (std::string idle = vkrt->wait_idle(); !idle.empty()) return done("Vulkan error after the launch: " + idle);
    for (size_t i = 0; i < ts.size(); ++i)
      if (ts[i].output)
        if (std::string e = take_checked(static_cast<const uint8_t*>(bufs[i].map), pres[i], ts[i].data.size(),
                                         bufs[i].bytes, ts[i].data.data());
            !e.empty())
          return done(e);
    return done({});
  }
#endif
};

}  // namespace

int plugin_session_main(int fd) {
  signal(SIGPIPE, SIG_IGN);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing kernel is expected here; no core files
  Child c{};
  c.fd = fd;
  std::string msg;
  bool ready = false;
  while (wire::read_message(fd, msg)) {
    wire::Reader r{msg};
    const uint8_t kind = r.get<uint8_t>();
    if (kind == kHello && !ready) {
      const std::string why = c.hello(r);
      c.reply(why.empty() ? kOk : kSessionError, 0, why);
      if (!why.empty()) return 0;
      ready = true;
    } else if (kind == kLaunch && ready) {
      c.launch(r);
    } else {
      break;  // kBye, or nonsense
    }
  }
  if (ready && c.lib.abi == 2 && c.lib.v2->teardown) c.lib.v2->teardown(c.session);
  return 0;
}

}  // namespace qgate
