// Gate an engine's own kernels with qgate, through the installed package: describe each
// kernel (format, op, declared precision, tile), run every property that applies, and
// require nbad = 0. The planted-bug copy must be rejected: a gate that passes it is broken.
#include <cstdio>

#include "core/launch_adapters.hpp"
#include "properties/catalog.hpp"

namespace engine {
const char* matvec_q8_0_f32(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
const char* matvec_q8_0_f32_first_scale(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
}  // namespace engine

namespace {

// Each output sums K/32 block partials, each of 32 sequential terms: depth K/32 + 32.
constexpr qgate::Depth depth{1, 32, 32};

qgate::KernelInfo describe(const char* name, qgate::LaunchFn launch) {
  qgate::KernelInfo k;
  k.name = name;
  k.op = qgate::Op::matmul;
  k.backend = qgate::BackendId::cpu;
  k.format = qgate::FormatId::q8_0;
  k.prec = qgate::Precision{qgate::ActQuant::none, 23, depth, qgate::OutType::f32};
  k.tile = qgate::Tile{1, 1, 32};
  k.launch = launch;
  return k;
}

// Returns the number of failing properties.
int gate(const qgate::KernelInfo& k) {
  int failed = 0;
  for (const qgate::PropertyInfo& p : qgate::all_properties()) {
    if (!qgate::applies(p, k)) continue;
    const qgate::PropertyRun r = qgate::run_property(k, p, qgate::RunOptions{});
    std::printf("%-34s %-20s %s %s (max|err|/bound %.3g)\n", k.name.c_str(), std::string(p.name).c_str(),
                r.pass ? "PASS" : "FAIL", r.coverage.c_str(), r.max_ratio);
    if (!r.pass) std::printf("    %s\n", r.failure.c_str());
    failed += !r.pass;
  }
  return failed;
}

}  // namespace

int main() {
  const int good = gate(describe("engine_matvec_q8_0_f32", qgate::from_matmul<engine::matvec_q8_0_f32>));
  const int bad = gate(describe("engine_matvec_q8_0_f32_first_scale",
                                  qgate::from_matmul<engine::matvec_q8_0_f32_first_scale>));
  std::printf("engine kernel: %d failing properties (want 0); planted bug: %d failing properties (want > 0)\n", good, bad);
  return good == 0 && bad > 0 ? 0 : 1;
}
