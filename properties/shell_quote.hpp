// A word as a POSIX shell reads it back unchanged: as it is when it holds only characters
// no shell treats specially, else in single quotes (a ' inside written '\''). Repro lines
// and the commands qgate runs are built with it.
#pragma once
#include <string>

namespace qgate {

inline std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:/=+-") ==
                        std::string::npos)
    return s;
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace qgate
