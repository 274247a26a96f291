// One plugin kernel's session: a process of its own (qgate re-executed, so no device state
// or thread of qgate's is inherited) that loads the library once, calls its init, and runs
// every launch of that kernel qgate sends it, until qgate ends it or it dies. The inputs go
// to it and the whole guarded output region comes back through a socket; on CUDA and HIP
// the session allocates device memory, uploads, launches on its stream, synchronizes and
// reads the region back, checking guard bytes past it. A crash or exit ends the session
// (the next launch starts a new one); a launch that outlives the watchdog is killed with it.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel.hpp"
#include "properties/plugin_library.hpp"

namespace qgate {

struct SessionTarget {
  std::string path;  // absolute library path
  size_t index = 0;  // position in the table
  std::string name;
  PluginArgs args;
  BackendId backend = BackendId::cpu;
};

// Where a tensor goes in the plugin's call (qgate_plugin_v2_call's tensor fields, in order).
enum class Slot : uint8_t { w, x, y, ids, res, norm_w, q, k_new, v_new, w_q, w_k, pos, k_cache, v_cache, y2, count };

// One tensor of a launch. Inputs: `in`, `bytes` long. Outputs: the whole guarded region of a
// GuardedBuffer (red guard bytes, `bytes` of poisoned payload, red guard bytes), updated in
// place when the launch succeeds.
struct SessionTensor {
  Slot slot = Slot::w;
  bool output = false;
  const void* in = nullptr;
  uint8_t* region = nullptr;
  size_t bytes = 0, red = 0;
};

// A launch: the op, its shapes and scalars (qgate_plugin_v2_call's fields), its tensors.
struct SessionLaunch {
  Op op = Op::matmul;
  int64_t n = 0, k = 0, m = 1, experts = 0, top_k = 0;
  int64_t rows = 0, cols = 0, tokens = 0, n_head = 0, n_head_kv = 0, head_dim = 0, kv_len = 0, kv_cap = 0;
  float eps = 0, rope_base = 0, scale = 0;
  int32_t rope_mode = 0;
  int64_t repeats = 0;            // qgate bench: qgate_plugin_v2_call::repeats
  double* elapsed_ns = nullptr;   // qgate bench: receives what the kernel measured (-1: nothing)
  std::vector<SessionTensor> tensors;
  void input(Slot s, const void* p, size_t bytes) { tensors.push_back({s, false, p, nullptr, bytes, 0}); }
  void output(Slot s, uint8_t* region, size_t bytes, size_t red) { tensors.push_back({s, true, nullptr, region, bytes, red}); }
};

// The messages between qgate and a session process.
namespace session_wire {
enum : uint8_t { kHello = 1, kLaunch = 2, kBye = 3 };
enum : uint8_t { kOk = 0, kKernelError = 1, kSessionError = 2 };
}  // namespace session_wire

class PluginSession {
 public:
  PluginSession(SessionTarget target, double timeout_s) : target_(std::move(target)), timeout_s_(timeout_s) {}
  ~PluginSession() { end(); }
  PluginSession(const PluginSession&) = delete;
  PluginSession& operator=(const PluginSession&) = delete;

  // "" when the kernel ran and returned 0 (region updated), else why not. timed_out is set
  // when the watchdog ended it.
  std::string launch(const SessionLaunch& l, bool& timed_out);
  // Ends the process (teardown runs); the next launch starts a fresh one.
  void end();
  uint64_t launches() const { return launches_; }  // in the current process

  // The executable that runs sessions: it must call plugin_session_main when started as
  // `<program> __plugin-session <fd>`. Defaults to /proc/self/exe (the qgate tool).
  static void set_program(std::string path);
  static const std::string& program();

 private:
  std::string start(bool& timed_out);
  // Waits for one message under the deadline; "" or why the child produced none.
  std::string receive(std::string& payload, bool& timed_out);
  std::string reap();  // after the stream ended: how the child ended

  SessionTarget target_;
  double timeout_s_;
  pid_t pid_ = -1;
  int fd_ = -1;
  uint64_t launches_ = 0;
};

// Starts PluginSession::program() with argv[0] "qgate" and `args`, the child's fd 3 its end
// of a pipe or socket (`child_fd`, closed here either way) and its stdout on stderr (a
// plugin's prints stay out of qgate's table). "" and the pid, or why it could not start.
std::string spawn_qgate(const std::vector<std::string>& args, int child_fd, pid_t& pid);

// The session process's main loop (qgate __plugin-session FD). Returns the exit status.
int plugin_session_main(int fd);

}  // namespace qgate
