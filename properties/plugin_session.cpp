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

#include "properties/plugin_wire.hpp"

extern char** environ;

namespace qgate {
namespace {

using namespace session_wire;

std::string& program_path() {
  static std::string p = "/proc/self/exe";
  return p;
}


}  // namespace

std::string spawn_qgate(const std::vector<std::string>& args, int child_fd, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_fd, 3);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  std::vector<std::string> strs = {"qgate"};
  strs.insert(strs.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : strs) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const std::string& prog = PluginSession::program();
  const int rc = posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(child_fd);
  return rc == 0 ? std::string() : "qgate could not start a process (" + prog + "): " + std::strerror(rc);
}

void PluginSession::set_program(std::string path) { program_path() = std::move(path); }
const std::string& PluginSession::program() { return program_path(); }

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
  // The frame's 8-byte length, then the payload read straight into place: outputs of
  // hundreds of MB (every_scale_pattern) cross without growing or copying a buffer.
  uint64_t want = 0;
  size_t got = 0;
  bool header = true;
  payload.clear();
  while (true) {
    if (header && got == sizeof want) {
      header = false;
      got = 0;
      payload.resize(static_cast<size_t>(want));
    }
    if (!header && got == payload.size()) return {};
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
    char* dst = header ? reinterpret_cast<char*>(&want) + got : payload.data() + got;
    const size_t room = header ? sizeof want - got : payload.size() - got;
    const ssize_t n = read(fd_, dst, room);
    if (n > 0) got += static_cast<size_t>(n);
    else if (n < 0 && errno == EINTR) continue;
    else return reap();  // the stream ended without a whole reply: the child died
  }
}

std::string PluginSession::start(bool& timed_out) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return std::string("qgate could not make a socket pair: ") + std::strerror(errno);
  pid_t pid = -1;
  if (std::string why = spawn_qgate({"__plugin-session", "3"}, sv[1], pid); !why.empty()) {
    close(sv[0]);
    return why;
  }
  pid_ = pid, fd_ = sv[0], launches_ = 0;
  wire::Writer w;
  w.put<uint8_t>(kHello);
  w.text(target_.path);
  w.put<uint64_t>(target_.index);
  w.text(target_.name);
  w.put<uint32_t>(static_cast<uint32_t>(target_.args.size()));
  for (const auto& [k, v] : target_.args) w.text(k), w.text(v);
  w.put<int32_t>(static_cast<int32_t>(target_.backend));
  if (!wire::send_message(fd_, w.b)) return "starting its session: " + reap();
  std::string reply;
  if (std::string why = receive(reply, timed_out); !why.empty()) return "starting its session (loading, init) " + why;
  wire::Reader r{reply};
  const uint8_t status = r.get<uint8_t>();
  r.get<int32_t>();  // the reply's code field: unused at the start
  const std::string msg = r.text();
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
  size_t total = 256;
  for (const SessionTensor& t : l.tensors) total += 32 + (t.output ? t.bytes + 2 * t.red : t.bytes);
  w.b.reserve(total);
  w.put<uint8_t>(kLaunch);
  w.put<int32_t>(static_cast<int32_t>(l.op));
  for (int64_t v : {l.n, l.k, l.m, l.experts, l.top_k, l.rows, l.cols, l.tokens, l.n_head, l.n_head_kv, l.head_dim,
                    l.kv_len, l.kv_cap})
    w.put<int64_t>(v);
  w.put<float>(l.eps), w.put<float>(l.rope_base), w.put<float>(l.scale);
  w.put<int32_t>(l.rope_mode);
  w.put<uint64_t>(launches_);
  w.put<int64_t>(l.repeats);
  w.put<uint32_t>(static_cast<uint32_t>(l.tensors.size()));
  for (const SessionTensor& t : l.tensors) {
    w.put<uint8_t>(static_cast<uint8_t>(t.slot));
    w.put<uint8_t>(t.output);
    w.put<uint64_t>(t.bytes), w.put<uint64_t>(t.red);
    if (t.output) w.blob(t.region, t.bytes + 2 * t.red);
    else w.blob(t.in, t.bytes);
  }
  if (!wire::send_message(fd_, w.b)) return reap();
  ++launches_;
  std::string reply;
  if (std::string why = receive(reply, timed_out); !why.empty()) return why;
  wire::Reader r{reply};
  const uint8_t status = r.get<uint8_t>();
  const int32_t rc = r.get<int32_t>();
  const std::string msg = r.text();
  const double elapsed_ns = r.get<double>();
  if (!r.ok) return "a garbled reply from the session";
  if (l.elapsed_ns) *l.elapsed_ns = elapsed_ns;
  if (status == kKernelError) return "kernel returned error " + std::to_string(rc) + ": " + msg;
  if (status != kOk) return msg;
  for (const SessionTensor& t : l.tensors) {
    if (!t.output) continue;
    size_t n = 0;
    const uint8_t* region = r.blob(n);
    if (!r.ok || n != t.bytes + 2 * t.red) return "the session returned an output region of the wrong size";
    std::memcpy(t.region, region, n);
  }
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

}  // namespace qgate
