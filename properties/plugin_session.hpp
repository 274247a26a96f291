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

#include "kernels/kernel.hpp"
#include "properties/plugin_library.hpp"

namespace qgate {

struct SessionTarget {
  std::string path;  // absolute library path
  size_t index = 0;  // position in the table
  std::string name;
  PluginArgs args;
  BackendId backend = BackendId::cpu;
};

struct SessionLaunch {
  Op op = Op::matmul;
  int64_t n = 0, k = 0, m = 1;
  const uint8_t* w = nullptr;
  size_t w_bytes = 0;
  const float* x = nullptr;  // nullptr for dequant
  size_t x_bytes = 0;
  const int32_t* ids = nullptr;  // moe_matmul: m * top_k expert ids
  size_t ids_bytes = 0;
  int64_t experts = 0, top_k = 0;
  uint8_t* region = nullptr;  // the guarded output region: updated in place on success
  size_t region_bytes = 0, red = 0, y_bytes = 0;
};

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

// The session process's main loop (qgate __plugin-session FD). Returns the exit status.
int plugin_session_main(int fd);

}  // namespace qgate
