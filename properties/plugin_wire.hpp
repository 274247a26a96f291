// The byte stream between qgate and its plugin child processes (same machine, same build:
// native values as they are), and how a child's end is reported.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace qgate::wire {

constexpr size_t kMaxString = 256;

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
  void blob(const void* p, size_t n) {  // any length
    put<uint64_t>(n);
    b.append(static_cast<const char*>(p), n);
  }
  void text(const std::string& s) { blob(s.data(), s.size()); }
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
  // A blob's bytes in place (pointer into b) and its length.
  const uint8_t* blob(size_t& n) {
    n = static_cast<size_t>(get<uint64_t>());
    if (!ok || n > b.size() - at) {
      ok = false;
      n = 0;
      return nullptr;
    }
    const uint8_t* p = reinterpret_cast<const uint8_t*>(b.data()) + at;
    at += n;
    return p;
  }
  std::string text() {  // a blob as a string ("" when garbled; ok says so)
    size_t n = 0;
    const uint8_t* p = blob(n);
    return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
  }
};

// Writes all of s (retrying short writes, never raising SIGPIPE); false if the peer is gone.
bool write_all(int fd, const std::string& s);
// One message: its length as a u64, then its bytes.
bool send_message(int fd, const std::string& payload);
// Reads one message, blocking. False at end of stream or on error.
bool read_message(int fd, std::string& payload);

std::string signal_name(int sig);
std::string seconds(double s);
// How a child that ended with this wait status ended: "killed by SIGSEGV", "exited with
// status 3", or "" for a clean exit 0.
std::string exit_reason(int status);

}  // namespace qgate::wire
