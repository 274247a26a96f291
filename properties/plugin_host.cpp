#include "properties/plugin_host.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

#include "core/guarded.hpp"
#include "core/fused_args.hpp"
#include "core/launch_adapters.hpp"
#include "plugin/qgate_plugin.h"
#include "properties/plugin_session.hpp"
#include "properties/plugin_wire.hpp"
#include "kernels/registry.hpp"

namespace qgate {

struct PluginKernel {
  std::string library;  // as given (messages, repro lines)
  std::string path;     // absolute, what the children dlopen
  size_t index = 0;     // position in the plugin's table
  std::string name;
  PluginArgs args;      // --plugin-arg pairs of its library (repro lines)
  double timeout_s = 10;
  std::string unavailable;  // the plugin's or qgate's reason it cannot run here ("" = it can)
  // After a launch timed out the kernel is not run again (every later case would cost the
  // full limit): the reason, and the first property that saw it (set by annotate).
  std::string dead;
  std::string last_error;  // the message the last launch returned (the testbed keeps the pointer briefly)
  std::unique_ptr<PluginSession> session;
  BackendId session_backend = BackendId::cpu;  // the device its session opens (cpu: host memory)
};

namespace {

using wire::Reader;
using wire::Writer;
constexpr size_t kMaxKernels = 4096;
constexpr size_t kMaxPayload = size_t{1} << 24;

struct TableCtx {
  const std::string* path;
  const PluginArgs* args;
};

// In a child: the library's table, serialized (status byte, then the payload).
void table_body(int fd, void* ctx) {
  const TableCtx& c = *static_cast<const TableCtx*>(ctx);
  const PluginLibrary lib = PluginLibrary::open(*c.path, *c.args);
  Writer w;
  w.put<uint8_t>(lib.status);
  if (lib.status == PluginLibrary::abi_mismatch) {
    w.put<uint32_t>(lib.version);
  } else if (lib.status != PluginLibrary::ok) {
    w.str(lib.message.c_str());
  } else {
    w.put<int32_t>(lib.abi);
    w.put<uint64_t>(lib.count);
    for (size_t i = 0; i < lib.count; ++i) {
      // Version 1's descriptor is version 2's without its trailing fields (unavailable, math,
      // p_type, reserved): those read as absent / zero for a version 1 kernel.
      const qgate_plugin_v2_kernel* k2 = lib.abi == 2 ? &lib.v2->kernels[i] : nullptr;
      const qgate_plugin_kernel* k1 = lib.abi == 1 ? &lib.v1[i] : nullptr;
#define QG_FIELD(f) (k2 ? k2->f : k1->f)
      w.str(QG_FIELD(name));
      w.put(QG_FIELD(op));
      w.str(QG_FIELD(format));
      w.put(QG_FIELD(backend)), w.put(QG_FIELD(tile_m)), w.put(QG_FIELD(tile_n)), w.put(QG_FIELD(tile_k));
      w.put(QG_FIELD(max_m));
      const qgate_plugin_precision& p = QG_FIELD(precision);
      w.put(p.activation), w.put(p.acc_fraction_bits), w.put(p.depth.a), w.put(p.depth.b), w.put(p.depth.c);
      w.put(p.out_type), w.put(p.flush_denormals);
      w.put(QG_FIELD(deterministic));
      w.put<uint8_t>(k2 ? k2->launch != nullptr : k1->launch != nullptr);
#undef QG_FIELD
      w.str(k2 ? k2->unavailable : nullptr);
      const qgate_plugin_v2_math m = k2 ? k2->math : qgate_plugin_v2_math{};
      w.put(m.exp_ulp), w.put(m.exp_ulp_per_x), w.put(m.div_ulp), w.put(m.rsqrt_roundings), w.put(m.rotate_roundings);
      w.put(m.trig_u), w.put<int32_t>(k2 ? k2->p_type : 0), w.put<int32_t>(k2 ? k2->host_memory : 0);
      bool reserved_zero = true;
      if (k2)
        for (int32_t v : k2->reserved) reserved_zero &= v == 0;
      w.put<uint8_t>(reserved_zero);
    }
  }
  wire::write_all(fd, w.b);
}

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 96) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

const char* plugin_unavailable(const KernelInfo& k) {
  const PluginKernel& pk = *static_cast<const PluginKernel*>(k.device_code);
  return pk.unavailable.empty() ? nullptr : pk.unavailable.c_str();
}

// One launch through the kernel's session (started on first use): the whole guarded region
// travels to the session and back, so poison left and guard bytes overwritten show exactly
// as for an in-process kernel.
const char* session_launch(const KernelInfo& k, SessionLaunch& l, const std::string& where) {
  PluginKernel& pk = *const_cast<PluginKernel*>(static_cast<const PluginKernel*>(k.device_code));
  if (!pk.dead.empty()) {
    pk.last_error = "not run: " + pk.dead;
    return pk.last_error.c_str();
  }
  if (!pk.session)
    pk.session = std::make_unique<PluginSession>(SessionTarget{pk.path, pk.index, pk.name, pk.args, pk.session_backend}, pk.timeout_s);
  bool timed_out = false;
  const std::string why = pk.session->launch(l, timed_out);
  if (why.empty()) return nullptr;
  if (timed_out) pk.dead = why + where;
  pk.last_error = why + where;
  return pk.last_error.c_str();
}

const char* plugin_launch(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
  const bool mm = k.op != Op::dequant;
  SessionLaunch l;
  l.op = k.op;
  l.n = w.n, l.k = w.k, l.m = mm ? m : 1;
  l.input(Slot::w, w.bytes.data(), w.bytes.size());
  if (mm) l.input(Slot::x, x, static_cast<size_t>(m * w.k) * sizeof(float));
  l.output(Slot::y, out.region(), out.bytes(), out.redzone());
  return session_launch(k, l, " (n=" + std::to_string(w.n) + " k=" + std::to_string(w.k) + " m=" + std::to_string(l.m) + ")");
}

const char* plugin_moe(const KernelInfo& k, const QTensor& w, int64_t experts, const float* x, int64_t m,
                       const int32_t* ids, int64_t top_k, GuardedBuffer& out) {
  SessionLaunch l;
  l.op = k.op;
  l.n = w.n, l.k = w.k, l.m = m, l.experts = experts, l.top_k = top_k;
  l.input(Slot::w, w.bytes.data(), w.bytes.size());
  l.input(Slot::x, x, static_cast<size_t>(m * w.k) * sizeof(float));
  l.input(Slot::ids, ids, static_cast<size_t>(m * top_k) * sizeof(int32_t));
  l.output(Slot::y, out.region(), out.bytes(), out.redzone());
  return session_launch(k, l, " (n=" + std::to_string(w.n) + " k=" + std::to_string(w.k) + " m=" + std::to_string(m) +
                                  " experts=" + std::to_string(experts) + " top_k=" + std::to_string(top_k) + ")");
}

// Fusions and attention: the FusedArgs' tensors, sized by the op (core/fused_args.hpp);
// each output pointer sits `red` bytes into its guarded region.
const char* plugin_fused(const KernelInfo& kernel, const LaunchArgs& launch) {
  const FusedArgs& a = *launch.fused;
  SessionLaunch l;
  l.op = a.op;
  l.rows = a.rows, l.cols = a.n, l.top_k = a.top_k, l.tokens = a.tokens, l.n_head = a.n_head, l.n_head_kv = a.n_head_kv;
  l.head_dim = a.d, l.kv_len = a.kv_len, l.kv_cap = a.kv_cap;
  l.eps = a.eps, l.rope_base = a.rope_base, l.scale = a.scale, l.rope_mode = a.rope_mode == RopeMode::neox ? 0 : 1;
  const size_t f = sizeof(float), rc = static_cast<size_t>(a.rows * a.n);
  const size_t qn = static_cast<size_t>(a.tokens * a.n_head * a.d), kvn = static_cast<size_t>(a.tokens * a.n_head_kv * a.d);
  const size_t cache = static_cast<size_t>(a.n_head_kv * a.kv_cap * a.d);
  auto out = [&](Slot s, void* p, size_t bytes, size_t red) { l.output(s, static_cast<uint8_t*>(p) - red, bytes, red); };
  switch (a.op) {
    case Op::add_rmsnorm:
      l.input(Slot::x, a.x, rc * f), l.input(Slot::res, a.res, rc * f), l.input(Slot::norm_w, a.w, a.n * f);
      out(Slot::y, a.out0, rc * f, a.red_out0), out(Slot::y2, a.out1, rc * f, a.red_out1);
      break;
    case Op::silu_mul:
      l.input(Slot::x, a.x, rc * f), l.input(Slot::res, a.res, rc * f);
      out(Slot::y, a.out0, rc * f, a.red_out0);
      break;
    case Op::moe_route:
      l.input(Slot::x, a.x, rc * f);
      out(Slot::y, a.out0, static_cast<size_t>(a.rows * a.top_k) * f, a.red_out0);
      out(Slot::ids, a.ids, static_cast<size_t>(a.rows * a.top_k) * sizeof(int32_t), a.red_ids);
      break;
    case Op::qk_norm_rope:
      l.input(Slot::q, a.q, qn * f), l.input(Slot::k_new, a.k, kvn * f), l.input(Slot::v_new, a.v, kvn * f);
      l.input(Slot::w_q, a.w_q, a.d * f), l.input(Slot::w_k, a.w_k, a.d * f);
      l.input(Slot::pos, a.pos, static_cast<size_t>(a.tokens) * sizeof(int32_t));
      out(Slot::y, a.out0, qn * f, a.red_out0);
      out(Slot::k_cache, a.k_cache, cache * f, a.red_k), out(Slot::v_cache, a.v_cache, cache * f, a.red_v);
      break;
    case Op::attention:
      l.input(Slot::q, a.q, qn * f), l.input(Slot::k_cache, a.k_cache, cache * f), l.input(Slot::v_cache, a.v_cache, cache * f);
      out(Slot::y, a.out0, qn * f, a.red_out0);
      break;
    default: return "plugin: not a fused op";
  }
  return session_launch(kernel, l, " (" + std::string(op_name(a.op)) + ")");
}

// Ends the kernel's session process: its next launch is the first of a fresh process.
void plugin_restart(const KernelInfo& k) {
  PluginKernel& pk = *const_cast<PluginKernel*>(static_cast<const PluginKernel*>(k.device_code));
  if (pk.session) pk.session->end();
}

std::string args_suffix(const PluginArgs& args) {
  std::string o;
  for (const auto& [key, v] : args) o += " --plugin-arg " + shell_quote(key + "=" + v);
  return o;
}

}  // namespace

std::string plugin_bench(const KernelInfo& k, const QTensor& w, const float* x, int64_t repeats, double& ns) {
  ns = -1;
  if (k.op != Op::matmul) return "only matmul kernels are benchmarked";
  std::vector<uint8_t> y(static_cast<size_t>(w.n) * sizeof(float));
  SessionLaunch l;
  l.op = k.op;
  l.n = w.n, l.k = w.k, l.m = 1;
  l.repeats = repeats;
  l.elapsed_ns = &ns;
  l.input(Slot::w, w.bytes.data(), w.bytes.size());
  l.input(Slot::x, x, static_cast<size_t>(w.k) * sizeof(float));
  l.output(Slot::y, y.data(), y.size(), 0);
  const char* why = session_launch(k, l, "");
  return why ? why : "";
}


std::string run_in_child(double timeout_s, const std::vector<std::string>& args, std::string& payload) {
  payload.clear();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("qgate could not make a pipe: ") + std::strerror(errno);
  pid_t pid = -1;
  if (std::string why = spawn_qgate(args, fds[1], pid); !why.empty()) {
    close(fds[0]);
    return why;
  }
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
  if (timed_out) return "timed out after " + wire::seconds(timeout_s) + " s";
  return wire::exit_reason(status);
}

int plugin_table_main(int argc, char** argv) {
  if (argc < 2 || argc % 2) return 2;
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing plugin is expected here; no core files
  const std::string path = argv[1];
  PluginArgs args;
  for (int i = 2; i + 1 < argc; i += 2) args.emplace_back(argv[i], argv[i + 1]);
  TableCtx ctx{&path, &args};
  table_body(std::atoi(argv[0]), &ctx);
  std::fflush(nullptr);
  _exit(0);  // as soon as the table is out: no static destructors of the plugin's libraries
}

PluginHost::PluginHost(double timeout_s) : timeout_s_(timeout_s) {}
PluginHost::~PluginHost() = default;

bool PluginHost::owns(const KernelInfo& k) const {
  for (const KernelInfo* p : kernels_)
    if (p == &k) return true;
  return false;
}

void PluginHost::load(const std::string& library, const PluginArgs& args) {
  const std::string what = "plugin " + library;
  auto fail = [&](const std::string& why) { unloaded_.emplace_back(what, why); };
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(library, ec);
  if (ec || !std::filesystem::is_regular_file(abs, ec)) return fail("no such file");
  std::string path = abs.string();
  if (path.find('/') == std::string::npos) path = "./" + path;  // dlopen must not search

  std::string payload;
  std::vector<std::string> argv = {"__plugin-table", "3", path};
  for (const auto& [k, v] : args) argv.push_back(k), argv.push_back(v);
  const std::string why = run_in_child(timeout_s_, argv, payload);
  if (!why.empty()) return fail("loading it and reading its kernel table " + why);
  Reader r{payload};
  const uint8_t status = r.get<uint8_t>();
  if (!r.ok) return fail("the child that loaded it reported nothing");
  if (status == PluginLibrary::abi_mismatch) {
    const uint32_t v = r.get<uint32_t>();
    return fail("ABI version mismatch: the plugin was built for ABI version " + std::to_string(v) +
                ", this qgate speaks versions 1 and 2 (rebuild it against this qgate's plugin/qgate_plugin.h)");
  }
  if (status != PluginLibrary::ok) {
    std::string msg;
    r.str(msg);
    switch (status) {
      case PluginLibrary::no_library: return fail("dlopen failed: " + msg);
      case PluginLibrary::no_symbol: return fail("missing symbol " + msg + " (not a qgate plugin; plugin/qgate_plugin.h)");
      case PluginLibrary::bad_table: return fail("bad kernel table: " + msg);
      case PluginLibrary::refused: return fail("qgate_plugin_v2_get refused: " + msg);
      default: return fail("the child that loaded it reported nonsense");
    }
  }
  const int32_t abi = r.get<int32_t>();
  const uint64_t count = r.get<uint64_t>();
  if (!r.ok || count > kMaxKernels) return fail("the kernel table could not be read");
  if (count == 0) return fail("declares no kernels");
  for (uint64_t i = 0; i < count; ++i) {
    std::string name, format, unavailable;
    const uint8_t name_tag = r.str(name);
    const int32_t op = r.get<int32_t>();
    const uint8_t fmt_tag = r.str(format);
    const int32_t backend = r.get<int32_t>(), tm = r.get<int32_t>(), tn = r.get<int32_t>(), tk = r.get<int32_t>();
    const int32_t max_m = r.get<int32_t>();
    const int32_t act = r.get<int32_t>(), bits = r.get<int32_t>();
    const int64_t da = r.get<int64_t>(), db = r.get<int64_t>(), dc = r.get<int64_t>();
    const int32_t out = r.get<int32_t>(), ftz = r.get<int32_t>(), det = r.get<int32_t>();
    const bool has_launch = r.get<uint8_t>() != 0;
    const uint8_t unavailable_tag = r.str(unavailable);
    const double exp_ulp = r.get<double>(), exp_ulp_per_x = r.get<double>(), div_ulp = r.get<double>();
    const int32_t rsqrt_roundings = r.get<int32_t>(), rotate_roundings = r.get<int32_t>();
    const double trig_u = r.get<double>();
    const int32_t p_type = r.get<int32_t>();
    const bool host_memory = r.get<int32_t>() != 0;
    const bool reserved_zero = r.get<uint8_t>() != 0;
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
    const int32_t last_op = abi == 2 ? QGATE_OP_ATTENTION : QGATE_OP_MATMUL;
    const bool fused = op >= QGATE_OP_ADD_RMSNORM;
    if (op < 0 || op > last_op) {
      bad("unknown op " + std::to_string(op) +
          (abi == 2 ? " (0 dequant, 1 matmul, 2 gate_up, 3 moe_matmul, 4 add_rmsnorm, 5 qk_norm_rope, 6 moe_route, 7 silu_mul, 8 attention)"
                    : " (0 = dequant, 1 = matmul)"));
      continue;
    }
    // Fusions and attention have no weight: their format is ignored (q8_0 stands in, as for
    // qgate's own fused kernels).
    const FormatInfo* fmt = fused ? &format_info(FormatId::q8_0) : fmt_tag == 1 ? find_format(format) : nullptr;
    if (!fmt) {
      bad(fmt_tag == 0 ? "no format name" : "unknown format '" + format + "' (qgate list --formats)");
      continue;
    }
    if (backend < 0 || backend > QGATE_BACKEND_HIP) { bad("unknown backend " + std::to_string(backend)); continue; }
    if (tm < 1 || tn < 1 || tk < 1 || tm > 4096 || tn > 4096 || tk > 65536) { bad("tile sizes must be in 1..4096 (k: 1..65536)"); continue; }
    if (max_m < 0 || max_m > 4096) { bad("max_m must be in 0..4096"); continue; }
    const int32_t last_act = abi == 2 ? QGATE_ACT_Q8_1_S16 : QGATE_ACT_FP8_E4M3_TOKEN;
    if (act < 0 || act > last_act) { bad("unknown activation quantization " + std::to_string(act)); continue; }
    if ((op == QGATE_OP_DEQUANT || fused) && act != QGATE_ACT_NONE) { bad("a dequant, fusion or attention kernel quantizes no activations"); continue; }
    if (fused && out != QGATE_OUT_F32) { bad("fusion and attention outputs are f32"); continue; }
    if (p_type < 0 || p_type > QGATE_OUT_BF16) { bad("unknown p_type " + std::to_string(p_type)); continue; }
    if (rsqrt_roundings < 0 || rsqrt_roundings > 64 || rotate_roundings < 0 || rotate_roundings > 64 || !(trig_u >= 0 && trig_u <= 1e6)) {
      bad("math: rounding counts must be in 0..64, trig_u in 0..1e6");
      continue;
    }
    if (bits < 1 || bits > 52) { bad("accumulator fraction bits must be in 1..52"); continue; }
    if (out < 0 || out > QGATE_OUT_BF16) { bad("unknown output type " + std::to_string(out)); continue; }
    if (!has_launch) { bad("no launch function"); continue; }
    if (unavailable_tag == 2) { bad("the unavailable reason is longer than 256 characters"); continue; }
    if (!reserved_zero) { bad("reserved fields must be zero (built against a newer header?)"); continue; }
    auto bad_ulp = [](double v) { return !(v >= 0 && v <= 1e6); };
    if (bad_ulp(exp_ulp) || bad_ulp(exp_ulp_per_x) || bad_ulp(div_ulp)) { bad("math: ULP counts must be in 0..1e6"); continue; }
    Depth depth;  // a kernel the plugin says cannot run here is never evaluated: its depth is not read
    if (op != QGATE_OP_DEQUANT && unavailable.empty()) {
      if (db < 1 || da < 0 || dc < 0 || da > (1 << 20) || dc > (1 << 30) || da + dc < 1) {
        bad("depth = a*ceil(k/b) + c needs b >= 1, 0 <= a <= 2^20, 0 <= c <= 2^30 and a + c >= 1");
        continue;
      }
      depth = Depth{da, db, dc};
    }
    PluginKernel& pk = state_.emplace_back();
    pk.library = library, pk.path = path, pk.index = i, pk.name = name, pk.args = args, pk.timeout_s = timeout_s_;
    static constexpr BackendId backends[] = {BackendId::cpu, BackendId::vulkan, BackendId::cuda, BackendId::hip};
    const BackendId be = backends[backend];
    if (!unavailable.empty()) pk.unavailable = "the plugin says: " + unavailable;
    else if (abi == 1 && be != BackendId::cpu)
      pk.unavailable = "plugin ABI version 1 launches with host pointers only: declare the kernel through version 2 (qgate_plugin_v2_get) for device memory";
    pk.session_backend = host_memory ? BackendId::cpu : be;
    KernelInfo& ki = infos_.emplace_back();
    ki.name = name;
    static constexpr Op ops[] = {Op::dequant, Op::matmul, Op::gate_up, Op::moe_matmul, Op::add_rmsnorm,
                                 Op::qk_norm_rope, Op::moe_route, Op::silu_mul, Op::attention};
    ki.op = ops[op];
    ki.backend = be;
    ki.format = fmt->id;
    static constexpr ActQuant acts[] = {ActQuant::none, ActQuant::q8_1, ActQuant::q8_K, ActQuant::fp8_e4m3_token,
                                        ActQuant::q8_0, ActQuant::q8_1_s16};
    ki.prec = Precision{acts[act], bits, depth, static_cast<OutType>(out), ftz != 0};
    ki.tile = Tile{tm, tn, tk};
    ki.max_m = max_m;
    ki.deterministic = det != 0;
    ki.launch = ki.op == Op::moe_matmul ? from_moe<plugin_moe> : fused ? plugin_fused : from_weight<plugin_launch>;
    ki.p_type = static_cast<OutType>(p_type);
    if (rsqrt_roundings > 0) ki.math.rsqrt_roundings = rsqrt_roundings;
    if (rotate_roundings > 0) ki.math.rotate_roundings = rotate_roundings;
    if (trig_u > 0) ki.math.trig_u = trig_u;
    ki.restart = plugin_restart;
    if (exp_ulp > 0) ki.math.exp_ulp = exp_ulp;
    ki.math.exp_ulp_per_x = exp_ulp_per_x;
    if (div_ulp > 0) ki.math.div_ulp = div_ulp;
    ki.math.flush_denormals = ftz != 0;
    ki.device_code = &pk;
    ki.unavailable = plugin_unavailable;
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
                args_suffix(pk.args) + (pk.timeout_s != 10 ? " --plugin-timeout " + wire::seconds(pk.timeout_s) : std::string());
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
      o += "  PASS " + g.kernel->name + ": " + count + ", worst max|err|/bound " + buf +
           (g.kernel->deterministic ? "" : " (declared non-deterministic: reruns not compared, the deterministic property not run)") + "\n";
    } else {
      o += "  FAIL " + g.kernel->name + ": " + count + "; " + std::string(first->first->name) + ": " +
           first->second.failure + "\n";
    }
  }
  for (const auto& [what, why] : rep.unloaded) o += "  FAIL " + what + ": " + why + "\n";
  return o;
}

}  // namespace qgate
