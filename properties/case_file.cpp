#include "properties/case_file.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "kernels/kernel.hpp"

namespace qgate {
namespace {

std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) { s[2 * i] = d[p[i] >> 4]; s[2 * i + 1] = d[p[i] & 15]; }
  return s;
}
bool unhex(const std::string& s, std::vector<uint8_t>& out) {
  if (s.size() % 2) return false;
  out.resize(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned v;
    if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return false;
    out[i] = static_cast<uint8_t>(v);
  }
  return true;
}
uint64_t fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace

std::string write_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                            const Case& c, const std::string& verdict, std::string& err) {
  const KernelInfo* k = find_kernel(kernel);
  std::ostringstream os;
  os << "qgate-case 1\n"
     << "kernel " << kernel << "\n"
     << "property " << property << "\n"
     << "op " << (k ? op_name(k->op) : "?") << "\n"
     << "format " << (c.w.fmt ? c.w.fmt->name : "?") << "\n"
     << "spec " << to_string(c.spec) << "\n"
     << "verdict " << verdict << "\n"
     << "n " << c.w.n << "\nk " << c.w.k << "\nm " << c.spec.m << "\n"
     << "w " << hex(c.w.bytes.data(), c.w.bytes.size()) << "\n"
     << "x " << hex(reinterpret_cast<const uint8_t*>(c.x.data()), c.x.size() * 4) << "\n"
     << "end\n";
  const std::string body = os.str();
  char name[64];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv(kernel + property + to_string(c.spec))));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/" + kernel + "-" + property + "-" + name + ".case";
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << body;
    f.flush();
    if (!f) { err = "cannot write " + tmp; std::filesystem::remove(tmp, ec); return {}; }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) { err = "cannot rename " + tmp + ": " + ec.message(); std::filesystem::remove(tmp, ec); return {}; }
  return path;
}

bool read_case_file(const std::string& path, CaseFile& out, std::string& err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { err = "cannot open " + path; return false; }
  std::string line, key, val;
  bool header = false, end = false;
  std::string spec_text, fmt;
  std::vector<uint8_t> w, x;
  int64_t n = -1, k = -1, m = -1;
  while (std::getline(f, line)) {
    const auto sp = line.find(' ');
    key = line.substr(0, sp);
    val = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "qgate-case") header = val == "1";
    else if (key == "kernel") out.kernel = val;
    else if (key == "property") out.property = val;
    else if (key == "op") out.op = val;
    else if (key == "format") fmt = val;
    else if (key == "spec") spec_text = val;
    else if (key == "verdict") out.verdict = val;
    else if (key == "n") n = std::atoll(val.c_str());
    else if (key == "k") k = std::atoll(val.c_str());
    else if (key == "m") m = std::atoll(val.c_str());
    else if (key == "w") { if (!unhex(val, w)) { err = "bad hex in w"; return false; } }
    else if (key == "x") { if (!unhex(val, x)) { err = "bad hex in x"; return false; } }
    else if (key == "end") end = true;
  }
  if (!header) { err = path + ": not a qgate case file (version 1)"; return false; }
  if (!end) { err = path + ": truncated case file (no end line)"; return false; }
  out.format = fmt;
  out.c.w.fmt = find_format(fmt);
  if (!out.c.w.fmt) { err = path + ": unknown format '" + fmt + "'"; return false; }
  if (!parse_spec(spec_text, out.c.spec, err)) { err = path + ": " + err; return false; }
  if (n < 1 || k < 1 || m < 1) { err = path + ": impossible shape"; return false; }
  if (x.size() % 4 || (!x.empty() && static_cast<int64_t>(x.size() / 4) != m * k)) {
    err = path + ": activation size does not match m*k";
    return false;
  }
  out.c.w.n = n;
  out.c.w.k = k;
  out.c.spec.m = m;
  out.c.w.bytes = std::move(w);
  out.c.x.resize(x.size() / 4);
  if (!x.empty()) std::memcpy(out.c.x.data(), x.data(), x.size());
  return true;
}

}  // namespace qgate
