#include "properties/case_file.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

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

// A case file is one JSON object: these fields, then the weight case's "shape" {n, k, m} or
// nothing, and "tensors" {name: little-endian bytes in hex}.
nlohmann::ordered_json header(const std::string& kernel, const std::string& property, std::string_view op,
                              std::string_view format, const std::string& spec, const std::string& verdict) {
  return {{"qgate_case", 2}, {"kernel", kernel},  {"property", property}, {"op", op},
          {"format", format},  {"spec", spec},     {"verdict", verdict}};
}

}  // namespace

std::string write_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                            const Case& c, const std::string& verdict, std::string& err) {
  const KernelInfo* k = find_kernel(kernel);
  nlohmann::ordered_json j = header(kernel, property, k ? op_name(k->op) : "?", c.w.fmt ? c.w.fmt->name : "?",
                                    to_string(c.spec), verdict);
  j["shape"] = {{"n", c.w.n}, {"k", c.w.k}, {"m", c.spec.m}};
  j["tensors"] = {{"w", hex(c.w.bytes.data(), c.w.bytes.size())}, {"x", hex_of(c.x)}};
  return write_atomically(dir, kernel, property, to_string(c.spec), j.dump(1) + "\n", err);
}

std::string write_fused_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                                  const FusedCase& c, const std::string& verdict, std::string& err) {
  nlohmann::ordered_json j = header(kernel, property, op_name(c.spec.op), "-", to_string(c.spec), verdict);
  nlohmann::ordered_json t = nlohmann::ordered_json::object();
  for (const FusedTensor& ft : kFusedTensors)
    if (!(c.*ft.f32).empty()) t[ft.key] = hex_of(c.*ft.f32);
  if (!c.pos.empty()) t["pos"] = hex_of(c.pos);
  j["tensors"] = std::move(t);
  return write_atomically(dir, kernel, property, to_string(c.spec), j.dump(1) + "\n", err);
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

namespace {

// Version 2 (JSON) into the fields version 1 spells as lines: header fields into out,
// everything else as (key, text) pairs in file order.
bool read_json_case(const std::string& path, const std::string& text, CaseFile& out, std::string& spec_text,
                    std::string& fmt, std::vector<std::pair<std::string, std::string>>& fields, std::string& err) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) { err = path + ": not a qgate case file (malformed JSON)"; return false; }
  if (!j.contains("qgate_case") || j["qgate_case"] != 2) { err = path + ": not a qgate case file (version 2)"; return false; }
  auto str = [&](const char* key, std::string& dst) {
    if (!j.contains(key) || !j[key].is_string()) { err = path + ": field '" + key + "' missing or not a string"; return false; }
    dst = j[key].get<std::string>();
    return true;
  };
  if (!str("kernel", out.kernel) || !str("property", out.property) || !str("op", out.op) || !str("format", fmt) ||
      !str("spec", spec_text) || !str("verdict", out.verdict))
    return false;
  if (j.contains("shape")) {
    if (!j["shape"].is_object()) { err = path + ": 'shape' is not an object"; return false; }
    for (const auto& [key, v] : j["shape"].items()) {
      if (!v.is_number_integer()) { err = path + ": shape " + key + " is not an integer"; return false; }
      fields.emplace_back(key, std::to_string(v.get<int64_t>()));
    }
  }
  if (!j.contains("tensors") || !j["tensors"].is_object()) { err = path + ": 'tensors' missing"; return false; }
  for (const auto& [key, v] : j["tensors"].items()) {
    if (!v.is_string()) { err = path + ": tensor " + key + " is not a hex string"; return false; }
    fields.emplace_back(key, v.get<std::string>());
  }
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
  if (f >> std::ws && f.peek() == '{') {  // version 2: JSON
    std::ostringstream all;
    all << f.rdbuf();
    if (!read_json_case(path, all.str(), out, spec_text, fmt, tensors, err)) return false;
    header = end = true;
  }
  while (!end && std::getline(f, line)) {
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
