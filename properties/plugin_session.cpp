#include "properties/plugin_session.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/raw_device.hpp"
#include "properties/plugin_wire.hpp"
#ifdef QGATE_HAVE_VULKAN
#include "backends/vulkan/vk_runtime.hpp"
#endif

extern char** environ;

namespace qgate {
namespace {

enum : uint8_t { kHello = 1, kLaunch = 2, kBye = 3 };
enum : uint8_t { kOk = 0, kKernelError = 1, kSessionError = 2 };
constexpr size_t kSlack = 4096;  // guard bytes beyond the region on the device
constexpr uint8_t kSlackByte = 0xA5;

std::string& program() {
  static std::string p = "/proc/self/exe";
  return p;
}

void put_blob(wire::Writer& w, const std::string& s) { w.blob(s.data(), s.size()); }
std::string get_blob(wire::Reader& r) {
  size_t n = 0;
  const uint8_t* p = r.blob(n);
  return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

}  // namespace

void PluginSession::set_program(std::string path) { program() = std::move(path); }

std::string PluginSession::reap() {
  if (pid_ < 0) return {};
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (fd_ >= 0) close(fd_), fd_ = -1;
  launches_ = 0;
  const std::string why = wire::exit_reason(status);
  return why.empty() ? "exited without reporting a result" : why;
}

std::string PluginSession::receive(std::string& payload, bool& timed_out) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(timeout_s_));
  std::string buf;
  uint64_t want = UINT64_MAX;
  char chunk[1 << 16];
  while (true) {
    if (buf.size() >= sizeof want && want == UINT64_MAX) std::memcpy(&want, buf.data(), sizeof want);
    if (want != UINT64_MAX && buf.size() >= sizeof want + want) {
      payload.assign(buf, sizeof want, static_cast<size_t>(want));
      return {};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      kill(pid_, SIGKILL);
      reap();
      timed_out = true;
      return "timed out after " + wire::seconds(timeout_s_) + " s";
    }
    pollfd p{fd_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n > 0) buf.append(chunk, static_cast<size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else return reap();  // the stream ended without a whole reply: the child died
  }
}

std::string PluginSession::start(bool& timed_out) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return std::string("qgate could not make a socket pair: ") + std::strerror(errno);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 3);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&fa, 2, 1);      // a plugin's prints go to stderr, not into qgate's table
  std::string prog = program();
  char arg0[] = "qgate", arg1[] = "__plugin-session", arg2[] = "3";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  std::fflush(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    return "qgate could not start a session process (" + prog + "): " + std::strerror(rc);
  }
  pid_ = pid, fd_ = sv[0], launches_ = 0;
  wire::Writer w;
  w.put<uint8_t>(kHello);
  put_blob(w, target_.path);
  w.put<uint64_t>(target_.index);
  put_blob(w, target_.name);
  w.put<uint32_t>(static_cast<uint32_t>(target_.args.size()));
  for (const auto& [k, v] : target_.args) put_blob(w, k), put_blob(w, v);
  w.put<int32_t>(static_cast<int32_t>(target_.backend));
  if (!wire::send_message(fd_, w.b)) return "starting its session: " + reap();
  std::string reply;
  if (std::string why = receive(reply, timed_out); !why.empty()) return "starting its session (loading, init) " + why;
  wire::Reader r{reply};
  const uint8_t status = r.get<uint8_t>();
  r.get<int32_t>();  // the reply's code field: unused at the start
  const std::string msg = get_blob(r);
  if (!r.ok) return "starting its session: a garbled reply";
  if (status != kOk) {
    end();
    return msg;
  }
  return {};
}

std::string PluginSession::launch(const SessionLaunch& l, bool& timed_out) {
  timed_out = false;
  if (pid_ < 0)
    if (std::string why = start(timed_out); !why.empty()) return why;
  wire::Writer w;
  w.put<uint8_t>(kLaunch);
  w.put<int32_t>(static_cast<int32_t>(l.op));
  w.put<int64_t>(l.n), w.put<int64_t>(l.k), w.put<int64_t>(l.m);
  w.blob(l.w, l.w_bytes);
  w.put<uint8_t>(l.x != nullptr);
  w.blob(l.x, l.x ? l.x_bytes : 0);
  w.blob(l.region, l.region_bytes);
  w.put<uint64_t>(l.red), w.put<uint64_t>(l.y_bytes);
  w.put<uint64_t>(launches_);
  w.put<uint8_t>(l.ids != nullptr);
  w.blob(l.ids, l.ids ? l.ids_bytes : 0);
  w.put<int64_t>(l.experts), w.put<int64_t>(l.top_k);
  if (!wire::send_message(fd_, w.b)) return reap();
  ++launches_;
  std::string reply;
  if (std::string why = receive(reply, timed_out); !why.empty()) return why;
  wire::Reader r{reply};
  const uint8_t status = r.get<uint8_t>();
  const int32_t rc = r.get<int32_t>();
  const std::string msg = get_blob(r);
  size_t n = 0;
  const uint8_t* region = r.blob(n);
  if (!r.ok) return "a garbled reply from the session";
  if (status == kKernelError) return "kernel returned error " + std::to_string(rc) + ": " + msg;
  if (status != kOk) return msg;
  if (n != l.region_bytes) return "the session returned a region of the wrong size";
  std::memcpy(l.region, region, n);
  return {};
}

void PluginSession::end() {
  if (pid_ < 0) return;
  wire::Writer w;
  w.put<uint8_t>(kBye);
  wire::send_message(fd_, w.b);
  // Teardown gets a moment; then the process goes regardless.
  for (int i = 0; i < 200; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    const timespec ts{0, 5000000};
    nanosleep(&ts, nullptr);
  }
  if (pid_ >= 0) {
    kill(pid_, SIGKILL);
    reap();
  }
  if (fd_ >= 0) close(fd_), fd_ = -1;
  launches_ = 0;
}

// ------------------------------------------------------------------ the session process

namespace {

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

  void reply(uint8_t status, int32_t rc, const std::string& msg, const uint8_t* region = nullptr, size_t n = 0) {
    wire::Writer w;
    w.put<uint8_t>(status);
    w.put<int32_t>(rc);
    put_blob(w, msg);
    w.blob(region, region ? n : 0);
    wire::send_message(fd, w.b);
  }

  std::string hello(wire::Reader& r) {
    const std::string path = get_blob(r);
    index = static_cast<size_t>(r.get<uint64_t>());
    const std::string name = get_blob(r);
    PluginArgs args(r.get<uint32_t>());
    for (auto& [k, v] : args) k = get_blob(r), v = get_blob(r);
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

  // The inputs of a launch (weight, activations, expert ids) as the session received them,
  // and the call's tensor each fills.
  struct Input {
    const uint8_t* bytes = nullptr;
    size_t n = 0;
    qgate_plugin_v2_tensor* slot = nullptr;
  };

  void launch(wire::Reader& r) {
    qgate_plugin_v2_call c{};
    c.size = sizeof c;
    c.op = r.get<int32_t>();
    c.n = r.get<int64_t>(), c.k = r.get<int64_t>(), c.m = r.get<int64_t>();
    std::vector<Input> in;
    size_t n = 0;
    const uint8_t* p = r.blob(n);
    in.push_back({p, n, &c.w});
    const bool has_x = r.get<uint8_t>() != 0;
    p = r.blob(n);
    if (has_x) in.push_back({p, n, &c.x});
    size_t rn = 0;
    const uint8_t* rp = r.blob(rn);
    const size_t red = static_cast<size_t>(r.get<uint64_t>()), yb = static_cast<size_t>(r.get<uint64_t>());
    c.launch_index = r.get<uint64_t>();
    const bool has_ids = r.get<uint8_t>() != 0;
    p = r.blob(n);
    if (has_ids) in.push_back({p, n, &c.ids});
    c.experts = r.get<int64_t>(), c.top_k = r.get<int64_t>();
    if (!r.ok || red + yb > rn) return reply(kSessionError, 0, "a garbled launch message");
    c.device = &device;
    c.stream = device.stream;
    c.session = session;
    std::vector<uint8_t> region(rp, rp + rn);
    std::string err;
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
    const bool ok = dev ? run_device(c, in, region, red, yb, run, err)
#ifdef QGATE_HAVE_VULKAN
                  : vkrt ? run_vulkan(c, in, region, red, yb, run, err)
#endif
                  : run_host(c, in, region, red, yb, run);
    if (rc != 0) return reply(kKernelError, rc, msg);
    if (!ok) return reply(kSessionError, 0, err);
    reply(kOk, 0, "", region.data(), region.size());
  }

  // CPU: fresh, aligned host copies (the message buffer is only byte-aligned).
  template <class Run>
  bool run_host(qgate_plugin_v2_call& c, std::vector<Input>& in, std::vector<uint8_t>& region, size_t red, size_t yb,
                Run& run) {
    std::vector<std::vector<uint64_t>> copies;
    for (Input& i : in) {
      std::vector<uint64_t>& h = copies.emplace_back((i.n + 7) / 8 + 1);
      std::memcpy(h.data(), i.bytes, i.n);
      *i.slot = {h.data(), i.n, 0, 0};
    }
    std::vector<uint64_t> reg((region.size() + 7) / 8 + 1);
    std::memcpy(reg.data(), region.data(), region.size());
    c.y = {reinterpret_cast<uint8_t*>(reg.data()) + red, yb, 0, 0};
    run();
    std::memcpy(region.data(), reg.data(), region.size());
    return true;
  }

  // CUDA / HIP: device memory for each input and for the region with kSlack guard bytes each side.
  template <class Run>
  bool run_device(qgate_plugin_v2_call& c, std::vector<Input>& in, std::vector<uint8_t>& region, size_t red, size_t yb,
                  Run& run, std::string& err) {
    std::vector<void*> bufs;
    auto done = [&](const std::string& why) {
      for (void* b : bufs) dev->release(b);
      err = why;
      return why.empty();
    };
    for (Input& i : in) {
      void* d = nullptr;
      if (std::string e = dev->alloc(std::max<size_t>(i.n, 1), &d); !e.empty()) return done("device allocation: " + e);
      bufs.push_back(d);
      if (std::string e = dev->upload(d, i.bytes, i.n); !e.empty()) return done(e);
      *i.slot = {d, i.n, 0, 0};
    }
    const size_t rn = region.size();
    void* dr = nullptr;
    if (std::string e = dev->alloc(rn + 2 * kSlack, &dr); !e.empty()) return done("device allocation: " + e);
    bufs.push_back(dr);
    uint8_t* drb = static_cast<uint8_t*>(dr);
    std::vector<uint8_t> staged(rn + 2 * kSlack, kSlackByte);
    std::memcpy(staged.data() + kSlack, region.data(), rn);
    if (std::string e = dev->upload(drb, staged.data(), staged.size()); !e.empty()) return done(e);
    if (std::string e = dev->sync("uploading the inputs"); !e.empty()) return done(e);
    c.y = {drb + kSlack + red, yb, 0, 0};
    run();
    const std::string s = dev->sync("the launch");
    if (!s.empty()) return done("device error after the launch: " + s);
    if (std::string e = dev->download(staged.data(), drb, staged.size()); !e.empty()) return done(e);
    if (std::string e = dev->sync("reading the output back"); !e.empty()) return done(e);
    return done(check_guards(staged.data(), kSlack, rn, staged.size(), region));
  }

  // The guard bytes before [pre, pre + rn) and after it are untouched: then copy the region out.
  static std::string check_guards(const uint8_t* b, size_t pre, size_t rn, size_t total, std::vector<uint8_t>& region) {
    size_t past = 0;
    for (size_t i = 0; i < pre; ++i) past += b[i] != kSlackByte;
    for (size_t i = pre + rn; i < total; ++i) past += b[i] != kSlackByte;
    if (past) return "wrote " + std::to_string(past) + " bytes past its guarded region on the device";
    std::memcpy(region.data(), b + pre, rn);
    return {};
  }

#ifdef QGATE_HAVE_VULKAN
  // Vulkan: host-visible storage buffers (the inputs, the region with guard bytes each side,
  // placed so the output starts at a multiple of 256); the plugin records and submits its own
  // work to the queue, qgate waits for the queue to go idle.
  template <class Run>
  bool run_vulkan(qgate_plugin_v2_call& c, std::vector<Input>& in, std::vector<uint8_t>& region, size_t red, size_t yb,
                  Run& run, std::string& err) {
    auto round16 = [](size_t n) { return (std::max<size_t>(n, 1) + 15) / 16 * 16; };
    std::vector<vk::Buffer> bufs;
    bufs.reserve(in.size() + 1);
    auto done = [&](const std::string& why) {
      for (vk::Buffer& b : bufs) vkrt->release(b);
      err = why;
      return why.empty();
    };
    for (Input& i : in) {
      vk::Buffer& b = bufs.emplace_back(vkrt->alloc(round16(i.n)));
      if (!b.map) return done("Vulkan buffer allocation failed");
      std::memcpy(b.map, i.bytes, i.n);
      *i.slot = {nullptr, i.n, vk::Runtime::buffer_handle(b), 0};
    }
    const size_t rn = region.size(), pre = kSlack + (256 - (kSlack + red) % 256) % 256;
    vk::Buffer& br = bufs.emplace_back(vkrt->alloc(round16(pre + rn + kSlack)));
    if (!br.map) return done("Vulkan buffer allocation failed");
    uint8_t* rb = static_cast<uint8_t*>(br.map);
    std::memset(rb, kSlackByte, br.bytes);
    std::memcpy(rb + pre, region.data(), rn);
    c.y = {nullptr, yb, vk::Runtime::buffer_handle(br), pre + red};
    run();
    if (std::string idle = vkrt->wait_idle(); !idle.empty()) return done("Vulkan error after the launch: " + idle);
    return done(check_guards(rb, pre, rn, br.bytes, region));
  }
#endif
};

}  // namespace

int plugin_session_main(int fd) {
  signal(SIGPIPE, SIG_IGN);
  Child c{fd, {}};
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
