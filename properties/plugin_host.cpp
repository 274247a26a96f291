#include "properties/plugin_host.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "backends/guarded.hpp"
#include "plugin/qgate_plugin.h"

namespace qgate {

struct PluginKernel {
  std::string library;  // as given (messages, repro lines)
  std::string path;     // absolute, what the children dlopen
  size_t index = 0;     // position in the plugin's table
  std::string name;
  double timeout_s = 10;
  // After a launch timed out the kernel is not run again (every later case would cost the
  // full limit): the reason, and the first property that saw it (set by annotate).
  std::string dead;
  std::string last_error;  // the message the last launch returned (the testbed keeps the pointer briefly)
};

namespace {

constexpr size_t kMaxKernels = 4096;
constexpr size_t kMaxString = 256;
constexpr size_t kMaxPayload = size_t{1} << 24;

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

std::string signal_name(int s) {
  static const std::pair<int, const char*> names[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGABRT, "SIGABRT"},
      {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"},
      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGALRM, "SIGALRM"}};
  for (const auto& [n, s_name] : names)
    if (n == s) return s_name;
  return "signal " + std::to_string(s);
}

void write_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    const ssize_t n = write(fd, s.data() + at, s.size() - at);
    if (n > 0) at += static_cast<size_t>(n);
    else if (n < 0 && errno == EINTR) continue;
    else return;
  }
}

// A little-endian-agnostic byte stream between the child and the parent (same machine,
// same process image: raw native values are fine).
struct Writer {
  std::string b;
  template <class T> void put(T v) { b.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const char* s) {  // null -> absent; longer than kMaxString -> cut, flagged
    if (!s) return put<uint8_t>(0);
    const size_t n = strnlen(s, kMaxString + 1);
    put<uint8_t>(n > kMaxString ? 2 : 1);
    put<uint32_t>(static_cast<uint32_t>(std::min(n, kMaxString)));
    b.append(s, std::min(n, kMaxString));
  }
};
struct Reader {
  const std::string& b;
  size_t at = 0;
  bool ok = true;
  template <class T> T get() {
    T v{};
    if (at + sizeof v > b.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  // 0 = absent, 1 = present, 2 = too long.
  uint8_t str(std::string& s) {
    const uint8_t tag = get<uint8_t>();
    if (tag == 0 || !ok) return 0;
    const uint32_t n = get<uint32_t>();
    if (!ok || n > kMaxString || at + n > b.size()) {
      ok = false;
      return 0;
    }
    s.assign(b.data() + at, n);
    at += n;
    return tag;
  }
};

// In a child: the plugin's table, or why not. Status byte, then the payload.
enum : uint8_t { kTableOk = 0, kNoLibrary = 1, kNoSymbol = 2, kAbiMismatch = 3, kBadTable = 4 };

const qgate_plugin_kernel* open_table(const std::string& path, size_t& count, Writer& w) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    w.put<uint8_t>(kNoLibrary), w.str(e ? e : "dlopen failed");
    return nullptr;
  }
  dlerror();
  auto get = reinterpret_cast<qgate_plugin_get_fn>(dlsym(h, QGATE_PLUGIN_ENTRY));
  if (!get) {
    w.put<uint8_t>(kNoSymbol), w.str(QGATE_PLUGIN_ENTRY);
    return nullptr;
  }
  const qgate_plugin_kernel* table = nullptr;
  count = 0;
  const uint32_t v = get(QGATE_PLUGIN_ABI_VERSION, &table, &count);
  if (v != QGATE_PLUGIN_ABI_VERSION) {
    w.put<uint8_t>(kAbiMismatch), w.put<uint32_t>(v);
    return nullptr;
  }
  if (count > kMaxKernels || (count > 0 && !table)) {
    w.put<uint8_t>(kBadTable);
    w.str(count > kMaxKernels ? "more than 4096 kernels" : "a null table with a non-zero count");
    return nullptr;
  }
  static const qgate_plugin_kernel none{};  // count == 0: never read
  return table ? table : &none;
}

void table_body(int fd, void* ctx) {
  const std::string& path = *static_cast<const std::string*>(ctx);
  Writer w;
  size_t count = 0;
  const qgate_plugin_kernel* t = open_table(path, count, w);
  if (t) {
    w.put<uint8_t>(kTableOk);
    w.put<uint64_t>(count);
    for (size_t i = 0; i < count; ++i) {
      const qgate_plugin_kernel& k = t[i];
      w.str(k.name);
      w.put(k.op);
      w.str(k.format);
      w.put(k.backend), w.put(k.tile_m), w.put(k.tile_n), w.put(k.tile_k), w.put(k.max_m);
      const qgate_plugin_precision& p = k.precision;
      w.put(p.activation), w.put(p.acc_fraction_bits), w.put(p.depth.a), w.put(p.depth.b), w.put(p.depth.c);
      w.put(p.out_type), w.put(p.flush_denormals);
      w.put(k.deterministic);
      w.put<uint8_t>(k.launch != nullptr);
    }
  }
  write_all(fd, w.b);
}

struct LaunchCtx {
  const PluginKernel* pk;
  const uint8_t* w;
  const float* x;
  void* y;
  int64_t n, k, m;
};
enum : uint8_t { kLaunchOk = 0, kLaunchError = 1, kLaunchNoTable = 2 };

void launch_body(int fd, void* ctx) {
  const LaunchCtx& c = *static_cast<const LaunchCtx*>(ctx);
  Writer table_err;
  size_t count = 0;
  const qgate_plugin_kernel* t = open_table(c.pk->path, count, table_err);
  Writer w;
  if (!t || c.pk->index >= count || !t[c.pk->index].name ||
      strncmp(t[c.pk->index].name, c.pk->name.c_str(), kMaxString) != 0 || !t[c.pk->index].launch) {
    w.put<uint8_t>(kLaunchNoTable), w.put<int32_t>(0);
    w.str("the plugin's kernel table is not what it was when it was loaded");
    return write_all(fd, w.b);
  }
  const qgate_plugin_kernel& k = t[c.pk->index];
  char msg[1024] = {};
  const int32_t rc = k.launch(k.user, c.w, c.x, c.y, c.n, c.k, c.m, nullptr, msg, sizeof msg);
  msg[sizeof msg - 1] = 0;
  w.put<uint8_t>(rc == 0 ? kLaunchOk : kLaunchError), w.put<int32_t>(rc);
  w.str(msg);
  write_all(fd, w.b);
}

// Depth formulas as plain function pointers (Precision::depth takes no context): a pool
// of slots, each an instantiation reading its own {a, b, c}.
constexpr size_t kDepthSlots = 1024;
qgate_plugin_depth g_depth[kDepthSlots];
size_t g_depth_used = 0;
template <size_t I>
int64_t depth_slot(int64_t k) {
  const qgate_plugin_depth& d = g_depth[I];
  return d.a * ((k + d.b - 1) / d.b) + d.c;
}
template <size_t... I>
constexpr std::array<int64_t (*)(int64_t), sizeof...(I)> make_slots(std::index_sequence<I...>) {
  return {&depth_slot<I>...};
}
constexpr auto kDepthFns = make_slots(std::make_index_sequence<kDepthSlots>{});

const char* host_pointers_only() { return "plugin ABI v1 launches with host pointers: qgate does not hand device memory to plugin kernels yet"; }

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 96) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

const char* plugin_launch(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  PluginKernel& pk = *const_cast<PluginKernel*>(static_cast<const PluginKernel*>(k.device_code));
  const bool mm = k.op == Op::matmul;
  const std::string where =
      " (n=" + std::to_string(w.n) + " k=" + std::to_string(w.k) + " m=" + std::to_string(mm ? m : 1) + ")";
  if (!pk.dead.empty()) {
    pk.last_error = "not run: " + pk.dead;
    return pk.last_error.c_str();
  }
  // The whole guarded region is shared with the child, so poison left and guard bytes
  // overwritten show exactly as for an in-process kernel.
  const size_t bytes = out.region_bytes();
  void* shm = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm == MAP_FAILED) {
    pk.last_error = std::string("qgate could not map the shared output: ") + std::strerror(errno);
    return pk.last_error.c_str();
  }
  std::memcpy(shm, out.region(), bytes);
  LaunchCtx c{&pk, w.bytes.data(), mm ? x : nullptr, static_cast<uint8_t*>(shm) + out.redzone(), w.n, w.k, mm ? m : 1};
  std::string payload;
  const std::string why = run_in_child(pk.timeout_s, launch_body, &c, payload);
  const char* result = nullptr;
  if (!why.empty()) {
    if (why.starts_with("timed out")) pk.dead = why + where;
    pk.last_error = why + where;
    result = pk.last_error.c_str();
  } else {
    Reader r{payload};
    const uint8_t status = r.get<uint8_t>();
    const int32_t rc = r.get<int32_t>();
    std::string msg;
    r.str(msg);
    if (!r.ok) pk.last_error = "exited without reporting a result" + where;
    else if (status == kLaunchNoTable) pk.last_error = "plugin: " + msg;
    else if (status == kLaunchError) pk.last_error = "kernel returned error " + std::to_string(rc) + ": " + msg + where;
    if (r.ok && status == kLaunchOk) std::memcpy(out.region(), shm, bytes);
    else result = pk.last_error.c_str();
  }
  munmap(shm, bytes);
  return result;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:/=+-") ==
                        std::string::npos)
    return s;
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}


std::string run_in_child(double timeout_s, void (*body)(int fd, void* ctx), void* ctx, std::string& payload) {
  payload.clear();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("qgate could not make a pipe: ") + std::strerror(errno);
  std::fflush(nullptr);  // a plugin that calls exit() must not flush our buffers a second time
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return std::string("qgate could not fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    close(fds[0]);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // a crashing kernel is expected here; no core files
    body(fds[1], ctx);
    _exit(0);
  }
  close(fds[1]);
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(timeout_s));
  bool timed_out = false, exited = false, eof = false, flood = false;
  int status = 0;
  char buf[4096];
  // Poll the pipe in short slices and the child between them: the result arrives through
  // the pipe, and a child that exits while something else holds the pipe open still ends
  // the wait.
  while (!(exited && eof)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (!eof) {
      pollfd p{fds[0], POLLIN, 0};
      const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, exited ? 0 : 20)));
      if (r > 0) {
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) {
          payload.append(buf, static_cast<size_t>(n));
          if (payload.size() > kMaxPayload) {
            flood = true;
            break;
          }
        } else if (n == 0 || errno != EINTR) {
          eof = true;
        }
      } else if (r == 0 && exited) {
        eof = true;  // exited, nothing more to read now: whatever holds the pipe is not the child
      }
    }
    if (!exited) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) exited = true;
      else if (w < 0 && errno != EINTR) exited = true, status = 0;
      else if (eof) {
        const timespec ts{0, 200000};
        nanosleep(&ts, nullptr);
      }
    }
  }
  close(fds[0]);
  if (!exited) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (flood) return "wrote more than 16 MiB of result";
  if (timed_out) return "timed out after " + seconds(timeout_s) + " s";
  if (WIFSIGNALED(status)) return "killed by " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  return {};
}

PluginHost::PluginHost(double timeout_s) : timeout_s_(timeout_s) {}
PluginHost::~PluginHost() = default;

bool PluginHost::owns(const KernelInfo& k) const {
  for (const KernelInfo* p : kernels_)
    if (p == &k) return true;
  return false;
}

void PluginHost::load(const std::string& library) {
  const std::string what = "plugin " + library;
  auto fail = [&](const std::string& why) { unloaded_.emplace_back(what, why); };
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(library, ec);
  if (ec || !std::filesystem::is_regular_file(abs, ec)) return fail("no such file");
  std::string path = abs.string();
  if (path.find('/') == std::string::npos) path = "./" + path;  // dlopen must not search

  std::string payload;
  const std::string why = run_in_child(timeout_s_, table_body, &path, payload);
  if (!why.empty()) return fail("loading it and reading its kernel table " + why);
  Reader r{payload};
  const uint8_t status = r.get<uint8_t>();
  if (!r.ok) return fail("the child that loaded it reported nothing");
  if (status == kNoLibrary || status == kNoSymbol || status == kBadTable) {
    std::string msg;
    r.str(msg);
    if (status == kNoLibrary) return fail("dlopen failed: " + msg);
    if (status == kNoSymbol) return fail("missing symbol " + msg + " (not a qgate plugin; plugin/qgate_plugin.h)");
    return fail("bad kernel table: " + msg);
  }
  if (status == kAbiMismatch) {
    const uint32_t v = r.get<uint32_t>();
    return fail("ABI version mismatch: the plugin was built for ABI version " + std::to_string(v) +
                ", this qgate speaks version " + std::to_string(QGATE_PLUGIN_ABI_VERSION) + " (rebuild it against this qgate's plugin/qgate_plugin.h)");
  }
  if (status != kTableOk) return fail("the child that loaded it reported nonsense");
  const uint64_t count = r.get<uint64_t>();
  if (!r.ok || count > kMaxKernels) return fail("the kernel table could not be read");
  if (count == 0) return fail("declares no kernels");
  for (uint64_t i = 0; i < count; ++i) {
    std::string name, format;
    const uint8_t name_tag = r.str(name);
    const int32_t op = r.get<int32_t>();
    const uint8_t fmt_tag = r.str(format);
    const int32_t backend = r.get<int32_t>(), tm = r.get<int32_t>(), tn = r.get<int32_t>(), tk = r.get<int32_t>();
    const int32_t max_m = r.get<int32_t>();
    const int32_t act = r.get<int32_t>(), bits = r.get<int32_t>();
    const int64_t da = r.get<int64_t>(), db = r.get<int64_t>(), dc = r.get<int64_t>();
    const int32_t out = r.get<int32_t>(), ftz = r.get<int32_t>(), det = r.get<int32_t>();
    const bool has_launch = r.get<uint8_t>() != 0;
    if (!r.ok) return fail("the kernel table could not be read (entry " + std::to_string(i) + ")");

    const std::string kwhat = what + ", kernel " + (name_tag == 1 && valid_name(name) ? name : "#" + std::to_string(i));
    auto bad = [&](const std::string& why) { unloaded_.emplace_back(kwhat, why); };
    if (name_tag != 1 || !valid_name(name)) {
      bad(name_tag == 0 ? "no name" : "name is not 1..96 characters of [A-Za-z0-9_.-]");
      continue;
    }
    bool taken = find_kernel(name) != nullptr;
    for (const PluginKernel& p : state_) taken |= p.name == name;
    if (taken) { bad("the name is taken (a registered kernel or another plugin kernel has it)"); continue; }
    if (op != QGATE_OP_DEQUANT && op != QGATE_OP_MATMUL) { bad("unknown op " + std::to_string(op) + " (0 = dequant, 1 = matmul)"); continue; }
    const FormatInfo* fmt = fmt_tag == 1 ? find_format(format) : nullptr;
    if (!fmt) {
      bad(fmt_tag == 0 ? "no format name" : "unknown format '" + format + "' (qgate list --formats)");
      continue;
    }
    if (backend < 0 || backend > QGATE_BACKEND_HIP) { bad("unknown backend " + std::to_string(backend)); continue; }
    if (tm < 1 || tn < 1 || tk < 1 || tm > 4096 || tn > 4096 || tk > 65536) { bad("tile sizes must be in 1..4096 (k: 1..65536)"); continue; }
    if (max_m < 0 || max_m > 4096) { bad("max_m must be in 0..4096"); continue; }
    if (act < 0 || act > QGATE_ACT_FP8_E4M3_TOKEN) { bad("unknown activation quantization " + std::to_string(act)); continue; }
    if (op == QGATE_OP_DEQUANT && act != QGATE_ACT_NONE) { bad("a dequant kernel quantizes no activations"); continue; }
    if (bits < 1 || bits > 52) { bad("accumulator fraction bits must be in 1..52"); continue; }
    if (out < 0 || out > QGATE_OUT_BF16) { bad("unknown output type " + std::to_string(out)); continue; }
    if (!has_launch) { bad("no launch function"); continue; }
    int64_t (*depth)(int64_t) = nullptr;
    if (op == QGATE_OP_MATMUL) {
      if (db < 1 || da < 0 || dc < 0 || da > (1 << 20) || dc > (1 << 30) || da + dc < 1) {
        bad("depth = a*ceil(k/b) + c needs b >= 1, 0 <= a <= 2^20, 0 <= c <= 2^30 and a + c >= 1");
        continue;
      }
      if (g_depth_used == kDepthSlots) { bad("more than 1024 plugin matmul kernels in one run"); continue; }
      g_depth[g_depth_used] = {da, db, dc};
      depth = kDepthFns[g_depth_used++];
    }
    PluginKernel& pk = state_.emplace_back();
    pk.library = library, pk.path = path, pk.index = i, pk.name = name, pk.timeout_s = timeout_s_;
    KernelInfo& ki = infos_.emplace_back();
    ki.name = name;
    ki.op = op == QGATE_OP_DEQUANT ? Op::dequant : Op::matmul;
    static constexpr BackendId backends[] = {BackendId::cpu, BackendId::vulkan, BackendId::cuda, BackendId::hip};
    ki.backend = backends[backend];
    ki.format = fmt->id;
    ki.prec = Precision{static_cast<ActQuant>(act), bits, depth, static_cast<OutType>(out), ftz != 0};
    ki.tile = Tile{tm, tn, tk};
    ki.max_m = max_m;
    ki.deterministic = det != 0;
    ki.launch = plugin_launch;
    ki.device_code = &pk;
    if (ki.backend != BackendId::cpu) ki.unavailable = host_pointers_only;
    kernels_.push_back(&ki);
  }
}

void PluginHost::annotate(GateReport& rep) const {
  for (KernelGate& g : rep.kernels) {
    if (!owns(*g.kernel)) continue;
    const PluginKernel& pk = *static_cast<const PluginKernel*>(g.kernel->device_code);
    std::string died_in;
    for (auto& [p, r] : g.runs) {
      if (r.pass) continue;
      char seed[32];
      std::snprintf(seed, sizeof seed, "0x%llx", static_cast<unsigned long long>(r.seed));
      // qgate repro does not load plugins: the gate run itself is the reproduction.
      r.repro = "qgate gate --plugin " + shell_quote(pk.library) + " --kernel " + pk.name + " --property " +
                std::string(p->name) + " --seed " + seed +
                (pk.timeout_s != 10 ? " --plugin-timeout " + seconds(pk.timeout_s) : std::string());
      if (pk.dead.empty() || r.failure.find("not run: " + pk.dead) == std::string::npos) continue;
      r.failing.reset();  // the shrinker's cases after the hang were never run: nothing to draw
      if (died_in.empty()) {
        died_in = std::string(p->name);
        r.failure = "FAIL kernel error: " + pk.dead + "; the kernel is not run again in this gate";
      } else {
        r.failure = "not run: the kernel " + pk.dead + " under property " + died_in;
      }
    }
  }
}

std::string PluginHost::verdicts(const GateReport& rep) const {
  std::string o = "plugin kernels:\n";
  char buf[64];
  for (const KernelGate& g : rep.kernels) {
    if (!owns(*g.kernel)) continue;
    if (g.skipped) {
      o += "  skipped " + g.kernel->name + ": " + g.skip_reason + "\n";
      continue;
    }
    int passed = 0;
    const std::pair<const PropertyInfo*, PropertyRun>* first = nullptr;
    for (const auto& run : g.runs) {
      passed += run.second.pass;
      if (!run.second.pass && !first) first = &run;
    }
    const std::string count = std::to_string(passed) + "/" + std::to_string(g.runs.size()) + " properties";
    if (!first) {
      std::snprintf(buf, sizeof buf, "%.2g", g.max_ratio());
      o += "  PASS " + g.kernel->name + ": " + count + ", worst max|err|/bound " + buf + "\n";
    } else {
      o += "  FAIL " + g.kernel->name + ": " + count + "; " + std::string(first->first->name) + ": " +
           first->second.failure + "\n";
    }
  }
  for (const auto& [what, why] : rep.unloaded) o += "  FAIL " + what + ": " + why + "\n";
  return o;
}

}  // namespace qgate
