// qgate gguf: look inside a GGUF file (what `qgate gate --gguf` can gate), and write the
// project's tiny fixture file (one tensor per GGUF type qgate has an oracle for).
#include <cstdio>
#include <cstring>
#include <iostream>

#include "io/gguf/gguf.hpp"
#include "core/kernel.hpp"
#include "properties/gen/materialize.hpp"
#include "tools/qgate/commands.hpp"
#include "kernels/registry.hpp"

namespace qgate::cli {
namespace {

void list(const std::string& path, bool all_kv) {
  gguf::MappedFile m;
  if (std::string e = m.open(path); !e.empty()) throw Failure{e};
  const gguf::File& f = m.file();
  std::cout << path << ": GGUF v" << f.version << ", " << f.kv.size() << " metadata entries, " << f.tensors.size()
            << " tensors, alignment " << f.alignment << ", data at byte " << f.data_offset << "\n";
  size_t shown = 0;
  for (const gguf::KeyValue& kv : f.kv) {
    // Long arrays (tokenizer vocabularies) are summarized unless --metadata asks for all.
    if (!all_kv && shown >= 40) {
      std::cout << "  ... " << f.kv.size() - shown << " more (--metadata shows all)\n";
      break;
    }
    std::cout << "  " << kv.key << " (" << gguf::type_name(kv.value.type) << ") = " << kv.value.to_string(all_kv ? 64 : 8)
              << "\n";
    ++shown;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-40s %-8s %-22s %12s %12s  %s\n", "tensor", "type", "shape (ne)", "offset", "bytes",
                "qgate");
  std::cout << buf;
  for (const gguf::TensorInfo& t : f.tensors) {
    std::string q;
    if (const FormatInfo* fmt = gguf::qgate_format(t.type)) {
      int kernels = 0;
      for (const KernelInfo& k : all_kernels()) kernels += &format_info(k.format) == fmt;
      q = kernels ? std::to_string(kernels) + " kernels (" + std::string(fmt->name) + ")"
                  : "oracle only: no kernel registered for " + std::string(fmt->name);
    } else {
      q = "unsupported: no oracle for " + std::string(t.ggml->name);
    }
    std::snprintf(buf, sizeof buf, "  %-40s %-8s %-22s %12llu %12llu  %s\n", t.name.c_str(),
                  std::string(t.ggml->name).c_str(), t.shape().c_str(), static_cast<unsigned long long>(t.offset),
                  static_cast<unsigned long long>(t.nbytes), q.c_str());
    std::cout << buf;
  }
}

// One tensor per weight format with a ggml id (generated valid blocks: random codes, normal
// scales), plus one f32 tensor (no oracle) and one q8_K (an activation format, no kernel).
void write_fixture(const std::string& path, int64_t rows, uint64_t seed) {
  std::vector<gguf::KeyValue> kv = {
      {"general.architecture", gguf::Value::string("qgate-fixture")},
      {"general.name", gguf::Value::string("qgate tiny GGUF fixture")},
      {"qgate.fixture.seed", gguf::Value::uint(gguf::ValueType::u64, seed)},
  };
  std::vector<gguf::TensorData> tensors;
  for (const FormatInfo* f : all_formats()) {
    if (f->ggml_type < 0 || f->tensor_level() || (f->is_activation && f->name != "q8_K")) continue;
    CaseSpec s;
    s.n = rows;
    s.k = 2 * f->block_elems;
    s.seed = seed + static_cast<uint64_t>(f->ggml_type);
    Case c;
    if (std::string e = materialize(*f, s, true, c); !e.empty()) throw Failure{std::string(f->name) + ": " + e, 1};
    tensors.push_back({"blk.0." + std::string(f->name) + ".weight", {static_cast<uint64_t>(s.k), static_cast<uint64_t>(s.n)},
                       static_cast<uint32_t>(f->ggml_type), std::move(c.w.bytes)});
  }
  std::vector<uint8_t> norm(4 * 64);
  for (size_t i = 0; i < 64; ++i) {
    const float one = 1.0f;
    std::memcpy(norm.data() + 4 * i, &one, 4);
  }
  tensors.push_back({"output_norm.weight", {64}, 0, std::move(norm)});
  if (std::string e = gguf::write_file(path, kv, tensors); !e.empty()) throw Failure{e, 1};
  std::cout << path << ": " << tensors.size() << " tensors written\n";
}

}  // namespace

void add_gguf(CLI::App& app) {
  auto* cmd = app.add_subcommand("gguf", "Inspect GGUF files (qgate gate --gguf gates kernels on their tensors)");
  cmd->require_subcommand(1);

  auto* ls = cmd->add_subcommand("list", "Header, metadata and tensors of a GGUF file, and which qgate can gate");
  auto path = std::make_shared<std::string>();
  auto all = std::make_shared<bool>(false);
  ls->add_option("file", *path, "the .gguf file")->required();
  ls->add_flag("--metadata", *all, "print every metadata entry and longer arrays");
  ls->callback([=] { list(*path, *all); });

  auto* fx = cmd->add_subcommand("fixture", "Write qgate's tiny GGUF fixture: one tensor per GGUF format qgate has an oracle for");
  auto out = std::make_shared<std::string>();
  auto rows = std::make_shared<int64_t>(12);
  auto seed = std::make_shared<uint64_t>(1);
  fx->add_option("file", *out, "where to write it")->required();
  fx->add_option("--rows", *rows, "rows per tensor (default 12)")->check(CLI::Range(1, 4096));
  fx->add_option("--seed", *seed, "data seed (default 1)");
  fx->callback([=] { write_fixture(*out, *rows, *seed); });
}

}  // namespace qgate::cli
