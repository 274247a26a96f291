#include "properties/plugin_wire.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

namespace qgate::wire {

bool write_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    // send() with MSG_NOSIGNAL on sockets (a dead child must not kill qgate with SIGPIPE);
    // write() on pipes, where the caller ignores the error the same way.
    ssize_t n = send(fd, s.data() + at, s.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, s.data() + at, s.size() - at);
    if (n > 0) at += static_cast<size_t>(n);
    else if (n < 0 && errno == EINTR) continue;
    else return false;
  }
  return true;
}

bool send_message(int fd, const std::string& payload) {
  const uint64_t n = payload.size();
  return write_all(fd, std::string(reinterpret_cast<const char*>(&n), sizeof n)) && write_all(fd, payload);
}

namespace {
bool read_exact(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = read(fd, p, n);
    if (r > 0) p += r, n -= static_cast<size_t>(r);
    else if (r < 0 && errno == EINTR) continue;
    else return false;
  }
  return true;
}
}  // namespace

bool read_message(int fd, std::string& payload) {
  uint64_t n = 0;
  if (!read_exact(fd, reinterpret_cast<char*>(&n), sizeof n)) return false;
  if (n > (uint64_t{1} << 34)) return false;
  payload.resize(static_cast<size_t>(n));
  return read_exact(fd, payload.data(), payload.size());
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

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}

std::string exit_reason(int status) {
  if (WIFSIGNALED(status)) return "killed by " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return {};
}

}  // namespace qgate::wire
