#include "properties/case_file.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "core/kernel.hpp"
#include "kernels/registry.hpp"

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

namespace {

// Atomically: a temp file, then rename. The name carries a hash of kernel, property and spec.
std::string write_atomically(const std::string& dir, const std::string& kernel, const std::string& property,
                             const std::string& spec, const std::string& body, std::string& err) {
  char name[64];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv(kernel + property + spec)));
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

template <class T>
std::string hex_of(const std::vector<T>& v) {
  return hex(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T));
}

// The input tensors of a fused case, by the name its file gives them.
struct FusedTensor {
  const char* key;
  std::vector<float> FusedCase::*f32;
};
constexpr FusedTensor kFusedTensors[] = {{"x", &FusedCase::x},     {"res", &FusedCase::res}, {"w", &FusedCase::w},
                                         {"q", &FusedCase::q},     {"k", &FusedCase::k},     {"v", &FusedCase::v},
                                         {"w_q", &FusedCase::w_q}, {"w_k", &FusedCase::w_k}};

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
  return write_atomically(dir, kernel, property, to_string(c.spec), os.str(), err);
}

std::string write_fused_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                                  const FusedCase& c, const std::string& verdict, std::string& err) {
  std::ostringstream os;
  os << "qgate-case 1\n"
     << "kernel " << kernel << "\n"
     << "property " << property << "\n"
     << "op " << op_name(c.spec.op) << "\n"
     << "format -\n"
     << "spec " << to_string(c.spec) << "\n"
     << "verdict " << verdict << "\n";
  for (const FusedTensor& t : kFusedTensors)
    if (!(c.*t.f32).empty()) os << t.key << " " << hex_of(c.*t.f32) << "\n";
  if (!c.pos.empty()) os << "pos " << hex_of(c.pos) << "\n";
  os << "end\n";
  return write_atomically(dir, kernel, property, to_string(c.spec), os.str(), err);
}

namespace {

// A fused case's tensors must have exactly the sizes its spec gives them (the generator's
// sizes, taken from materializing the spec): a file cannot make a kernel read past a tensor.
bool read_fused(const std::string& path, const std::vector<std::pair<std::string, std::string>>& fields,
                const std::string& spec_text, CaseFile& out, std::string& err) {
  out.fused = true;
  if (!parse_fused_spec(spec_text, out.fc.spec, err)) { err = path + ": " + err; return false; }
  if (op_name(out.fc.spec.op) != out.op) { err = path + ": the spec's op is not the file's op " + out.op; return false; }
  const FusedCase shape = materialize_fused(out.fc.spec);
  for (const auto& [key, val] : fields) {
    std::vector<uint8_t> bytes;
    auto take = [&](auto& dst, const auto& want) {
      using T = typename std::decay_t<decltype(dst)>::value_type;
      if (!unhex(val, bytes)) { err = path + ": bad hex in " + key; return false; }
      if (bytes.size() != want.size() * sizeof(T)) {
        err = path + ": tensor " + key + " has " + std::to_string(bytes.size() / sizeof(T)) + " elements, the spec gives it " +
              std::to_string(want.size());
        return false;
      }
      dst.resize(want.size());
      if (!bytes.empty()) std::memcpy(dst.data(), bytes.data(), bytes.size());
      return true;
    };
    bool known = false;
    for (const FusedTensor& t : kFusedTensors)
      if (key == t.key) {
        known = true;
        if (!take(out.fc.*t.f32, shape.*t.f32)) return false;
      }
    if (key == "pos") {
      known = true;
      if (!take(out.fc.pos, shape.pos)) return false;
      for (int32_t p : out.fc.pos)
        if (p < 0 || p >= out.fc.spec.kv_cap) { err = path + ": position " + std::to_string(p) + " outside the cache"; return false; }
    }
    if (!known) { err = path + ": unknown field '" + key + "' in a fused case"; return false; }
  }
  for (const FusedTensor& t : kFusedTensors)
    if ((out.fc.*t.f32).size() != (shape.*t.f32).size()) { err = path + ": tensor " + std::string(t.key) + " missing"; return false; }
  if (out.fc.pos.size() != shape.pos.size()) { err = path + ": tensor pos missing"; return false; }
  return true;
}

}  // namespace

bool read_case_file(const std::string& path, CaseFile& out, std::string& err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { err = "cannot open " + path; return false; }
  std::string line, key, val;
  bool header = false, end = false;
  std::string spec_text, fmt;
  std::vector<uint8_t> w, x;
  int64_t n = -1, k = -1, m = -1;
  std::vector<std::pair<std::string, std::string>> tensors;  // a fused case's, read after its op is known
  while (std::getline(f, line)) {
    const auto sp = line.find(' ');
    key = line.substr(0, sp);
    val = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (end) break;
    if (key == "qgate-case") header = val == "1";
    else if (key == "kernel") out.kernel = val;
    else if (key == "property") out.property = val;
    else if (key == "op") out.op = val;
    else if (key == "format") fmt = val;
    else if (key == "spec") spec_text = val;
    else if (key == "verdict") out.verdict = val;
    else if (key == "end") end = true;
    else tensors.emplace_back(key, val);
  }
  if (!header) { err = path + ": not a qgate case file (version 1)"; return false; }
  if (!end) { err = path + ": truncated case file (no end line)"; return false; }
  for (Op o : kFusedOps)
    if (out.op == op_name(o)) {
      out.format = fmt;
      return read_fused(path, tensors, spec_text, out, err);
    }
  for (const auto& [tk, tv] : tensors) {
    if (tk == "n") n = std::atoll(tv.c_str());
    else if (tk == "k") k = std::atoll(tv.c_str());
    else if (tk == "m") m = std::atoll(tv.c_str());
    else if (tk == "w") { if (!unhex(tv, w)) { err = "bad hex in w"; return false; } }
    else if (tk == "x") { if (!unhex(tv, x)) { err = "bad hex in x"; return false; } }
  }
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
