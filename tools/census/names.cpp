// Short kernel names for tables and budget patterns.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

void erase_all(std::string& s, std::string_view what) {
  for (size_t at; (at = s.find(what)) != std::string::npos;) s.erase(at, what.size());
}

}  // namespace

std::string short_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  std::string s = status == 0 && d ? std::string(d.get()) : mangled;
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);  // a function template's return type (kernels return void)
  erase_all(s, "(anonymous namespace)::");
  erase_all(s, "qgate::cuk::");
  erase_all(s, "qgate::census_mutants::");
  // Drop the parameter list: the last top-level "(...)".
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>') --depth;
    else if (s[i] == '(' && depth == 0) {
      s.resize(i);
      break;
    }
  }
  erase_all(s, " ");
  return s;
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    pos = nl + 1;
  }
  return out;
}

}  // namespace qgate::census
