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

#ifdef QGATE_HAVE_VULKAN
  // Vulkan: host-visible storage buffers (the weight, the activations, the region with guard
  // bytes each side, placed so the output starts at a multiple of 256); the plugin records
  // and submits its own work to the queue, qgate waits for the queue to go idle.
  template <class Run>
  void launch_vulkan(qgate_plugin_v2_call& c, const void* w, size_t wn, const void* x, size_t xn, const uint8_t* reg,
                     size_t rn, size_t red, size_t yb, Run& run, char* msg, int32_t& rc) {
    const size_t pre = kSlack + (256 - (kSlack + red) % 256) % 256;
    auto round16 = [](size_t n) { return (std::max<size_t>(n, 1) + 15) / 16 * 16; };
    vk::Buffer bw = vkrt->alloc(round16(wn)), bx, br = vkrt->alloc(round16(pre + rn + kSlack));
    if (x) bx = vkrt->alloc(round16(xn));
    auto done = [&] {
      for (vk::Buffer* b : {&bw, &bx, &br})
        if (b->handle) vkrt->release(*b);
    };
    if (!bw.map || !br.map || (x && !bx.map)) return done(), reply(kSessionError, 0, "Vulkan buffer allocation failed");
    std::memcpy(bw.map, w, wn);
    if (x) std::memcpy(bx.map, x, xn);
    uint8_t* rb = static_cast<uint8_t*>(br.map);
    std::memset(rb, kSlackByte, br.bytes);
    std::memcpy(rb + pre, reg, rn);
    c.w = {nullptr, wn, vk::Runtime::buffer_handle(bw), 0};
    if (x) c.x = {nullptr, xn, vk::Runtime::buffer_handle(bx), 0};
    c.y = {nullptr, yb, vk::Runtime::buffer_handle(br), pre + red};
    run();
    const std::string idle = vkrt->wait_idle();
    if (rc != 0) return done(), reply(kKernelError, rc, msg);
    if (!idle.empty()) return done(), reply(kSessionError, 0, "Vulkan error after the launch: " + idle);
    size_t past = 0;
    for (size_t i = 0; i < pre; ++i) past += rb[i] != kSlackByte;
    for (size_t i = pre + rn; i < br.bytes; ++i) past += rb[i] != kSlackByte;
    std::vector<uint8_t> back(rb + pre, rb + pre + rn);
    done();
    if (past) return reply(kSessionError, 0, "wrote " + std::to_string(past) + " bytes past its guarded region on the device");
    reply(kOk, 0, "", back.data(), rn);
  }
#endif

  void launch(wire::Reader& r) {
    qgate_plugin_v2_call c{};
    c.size = sizeof c;
    c.op = r.get<int32_t>();
    c.n = r.get<int64_t>(), c.k = r.get<int64_t>(), c.m = r.get<int64_t>();
    size_t wn = 0, xn = 0, rn = 0;
    const uint8_t* wp = r.blob(wn);
    const bool has_x = r.get<uint8_t>() != 0;
    const uint8_t* xp = r.blob(xn);
    const uint8_t* rp = r.blob(rn);
    const size_t red = static_cast<size_t>(r.get<uint64_t>()), yb = static_cast<size_t>(r.get<uint64_t>());
    c.launch_index = r.get<uint64_t>();
    if (!r.ok || red + yb > rn) return reply(kSessionError, 0, "a garbled launch message");
    // Host copies in fresh, aligned memory (the message buffer is only byte-aligned).
    std::vector<uint64_t> wh((wn + 7) / 8 + 1), xh((xn + 7) / 8 + 1), region((rn + 7) / 8 + 1);
    std::memcpy(wh.data(), wp, wn);
    std::memcpy(xh.data(), xp, xn);
    std::memcpy(region.data(), rp, rn);
    uint8_t* reg = reinterpret_cast<uint8_t*>(region.data());
    char msg[1024] = {};
    int32_t rc = 0;
    auto run = [&]() {
      if (lib.abi == 2) {
        const qgate_plugin_v2_kernel& k = lib.v2->kernels[index];
        c.session = session;
        rc = k.launch(k.user, &c, msg, sizeof msg);
      } else {
        const qgate_plugin_kernel& k = lib.v1[index];
        rc = k.launch(k.user, static_cast<const uint8_t*>(c.w.ptr), static_cast<const float*>(c.x.ptr), c.y.ptr, c.n,
                      c.k, c.m, c.stream, msg, sizeof msg);
      }
      msg[sizeof msg - 1] = 0;
    };
    c.device = &device;
    c.stream = device.stream;
#ifdef QGATE_HAVE_VULKAN
    if (vkrt) return launch_vulkan(c, wh.data(), wn, has_x ? xh.data() : nullptr, xn, reg, rn, red, yb, run, msg, rc);
#endif
    if (!dev) {
      c.w = {wh.data(), wn, 0, 0};
      if (has_x) c.x = {xh.data(), xn, 0, 0};
      c.y = {reg + red, yb, 0, 0};
      run();
      if (rc != 0) return reply(kKernelError, rc, msg);
      return reply(kOk, 0, "", reg, rn);
    }
    // Device: the weight, the activations and the region with kSlack guard bytes each side.
    void *dw = nullptr, *dx = nullptr, *dr = nullptr;
    auto fail = [&](const std::string& why) {
      for (void* p : {dw, dx, dr})
        if (p) dev->release(p);
      reply(kSessionError, 0, why);
    };
    std::vector<uint8_t> slack(kSlack, kSlackByte);
    if (std::string e = dev->alloc(std::max<size_t>(wn, 1), &dw); !e.empty()) return fail("device allocation: " + e);
    if (has_x)
      if (std::string e = dev->alloc(std::max<size_t>(xn, 1), &dx); !e.empty()) return fail("device allocation: " + e);
    if (std::string e = dev->alloc(rn + 2 * kSlack, &dr); !e.empty()) return fail("device allocation: " + e);
    uint8_t* drb = static_cast<uint8_t*>(dr);
    std::string e = dev->upload(dw, wh.data(), wn);
    if (e.empty() && has_x) e = dev->upload(dx, xh.data(), xn);
    if (e.empty()) e = dev->upload(drb, slack.data(), kSlack);
    if (e.empty()) e = dev->upload(drb + kSlack, reg, rn);
    if (e.empty()) e = dev->upload(drb + kSlack + rn, slack.data(), kSlack);
    if (e.empty()) e = dev->sync("uploading the inputs");
    if (!e.empty()) return fail(e);
    c.w = {dw, wn, 0, 0};
    if (has_x) c.x = {dx, xn, 0, 0};
    c.y = {drb + kSlack + red, yb, 0, 0};
    run();
    if (rc != 0) {
      dev->sync("after the launch");
      for (void* p : {dw, dx, dr})
        if (p) dev->release(p);
      return reply(kKernelError, rc, msg);
    }
    if (std::string s = dev->sync("the launch"); !s.empty()) return fail("device error after the launch: " + s);
    std::vector<uint8_t> back(rn + 2 * kSlack);
    e = dev->download(back.data(), drb, back.size());
    if (e.empty()) e = dev->sync("reading the output back");
    if (!e.empty()) return fail(e);
    size_t past = 0;
    for (size_t i = 0; i < kSlack; ++i) past += (back[i] != kSlackByte) + (back[kSlack + rn + i] != kSlackByte);
    for (void* p : {dw, dx, dr})
      if (p) dev->release(p);
    if (past) return reply(kSessionError, 0, "wrote " + std::to_string(past) + " bytes past its guarded region on the device");
    return reply(kOk, 0, "", back.data() + kSlack, rn);
  }
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
