// qgate dequant: raw blocks on stdin -> the exact values on stdout, little-endian float64
// (or the correctly rounded float32). The oracle's decode, made available to shell
// pipelines and to kernel authors checking their own dequantizer byte for byte.
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/dequant_bytes.hpp"
#include "oracles/formats/format.hpp"
#include "oracles/formats/scalar.hpp"
#include "tools/qgate/commands.hpp"

namespace qgate::cli {
namespace {

struct DequantOptions {
  std::string format;
  std::string out = "f64";
  std::optional<int64_t> n, k;
};

std::string known_formats() {
  std::string s;
  for (const FormatInfo* f : all_formats()) s += (s.empty() ? "" : ", ") + std::string(f->name);
  return s;
}

std::vector<uint8_t> read_stdin() {
  std::vector<uint8_t> in;
  uint8_t buf[1 << 16];
  for (;;) {
    const size_t got = std::fread(buf, 1, sizeof buf, stdin);
    in.insert(in.end(), buf, buf + got);
    if (got < sizeof buf) break;
  }
  if (std::ferror(stdin)) throw Failure{std::string("read error on stdin: ") + std::strerror(errno), kExitIo};
  return in;
}

// Values as little-endian bytes, independent of the host's byte order.
std::vector<uint8_t> encode(const std::vector<double>& v, bool f32) {
  std::vector<uint8_t> bytes(v.size() * (f32 ? 4 : 8));
  uint8_t* p = bytes.data();
  for (double x : v) {
    if (f32) {
      le::put32(p, scalar::to_f32(x));
      p += 4;
    } else {
      const uint64_t bits = std::bit_cast<uint64_t>(x);
      le::put32(p, static_cast<uint32_t>(bits));
      le::put32(p + 4, static_cast<uint32_t>(bits >> 32));
      p += 8;
    }
  }
  return bytes;
}

void run_dequant(const DequantOptions& o) {
  const FormatInfo* f = find_format(o.format);
  if (f == nullptr) throw Failure{"unknown format '" + o.format + "'; known: " + known_formats()};
  if ((o.n || o.k) && !f->tensor_level())
    throw Failure{"--n/--k apply only to gptq_int4 (a " + std::string(f->name) +
                  " input's shape is its length: whole blocks, back to back)"};

  const std::vector<uint8_t> in = read_stdin();
  std::vector<double> values;
  // Everything is decoded before anything is written: a bad block anywhere means no output.
  if (auto e = dequant_bytes(*f, in, values)) throw Failure{e.message};

  if (f->tensor_level() && !in.empty() && (o.n || o.k)) {
    // Decoding succeeded, so the header is there and valid.
    const int64_t k = le::u32(in.data() + 8), n = le::u32(in.data() + 12);
    if ((o.n && *o.n != n) || (o.k && *o.k != k))
      throw Failure{"shape mismatch: --n " + (o.n ? std::to_string(*o.n) : "-") + " --k " +
                    (o.k ? std::to_string(*o.k) : "-") + ", the container's header has n=" + std::to_string(n) +
                    " k=" + std::to_string(k)};
  }

  const std::vector<uint8_t> bytes = encode(values, o.out == "f32" || o.out == "F32");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
    throw Failure{std::string("write error on stdout: ") + std::strerror(errno), kExitIo};
  if (std::fflush(stdout) != 0) throw Failure{std::string("write error on stdout: ") + std::strerror(errno), kExitIo};
}

}  // namespace

void add_dequant(CLI::App& app) {
  auto opt = std::make_shared<DequantOptions>();
  CLI::App* sub = app.add_subcommand(
      "dequant",
      "Decode raw blocks read from stdin to exact values on stdout (raw little-endian float64, or the correctly "
      "rounded float32 with --out f32), in the format's element order, block after block. For gptq_int4, stdin "
      "is one whole qgate container and the shape comes from its header.");
  sub->add_option("--format", opt->format, "Format: the GGUF type name, case-insensitive (see `qgate list --formats`)")
      ->required()
      ->type_name("NAME");
  sub->add_option("--out", opt->out, "Output value type")
      ->check(CLI::IsMember({"f64", "f32"}, CLI::ignore_case))  // checks only; the value keeps its case
      ->capture_default_str();
  sub->add_option("--n", opt->n, "gptq_int4 only: expected rows (outputs); checked against the header")
      ->type_name("ROWS")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--k", opt->k, "gptq_int4 only: expected columns (inputs); checked against the header")
      ->type_name("COLS")
      ->check(CLI::NonNegativeNumber);
  sub->callback([opt] { run_dequant(*opt); });
}

}  // namespace qgate::cli
