// Fusion and attention cases: a spec (shapes, mode, seed), its materialized f32 tensors,
// and the testbed that runs one fused kernel on it into poisoned, guarded outputs and
// judges every output against the oracles of oracles/ops/fusion.hpp and attention.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "core/fused_args.hpp"
#include "properties/catalog.hpp"

namespace qgate {

struct FusedSpec {
  Op op = Op::add_rmsnorm;
  ValueMode values = ValueMode::normal;
  int64_t rows = 1, n = 1, top_k = 1;                          // norms, silu, router
  int64_t tokens = 1, n_head = 1, n_head_kv = 1, d = 2, kv_len = 1, kv_cap = 1;  // rope, attention
  bool neox = true;
  float eps = 1e-5f, rope_base = 10000.0f, scale = 1.0f;
  uint64_t seed = 0;
};
// The one-line form (comma-separated key=value, every field, floats to 9 digits so they
// round-trip): what a failure prints and `qgate repro --case` parses back.
std::string to_string(const FusedSpec& s);
bool parse_fused_spec(const std::string& text, FusedSpec& out, std::string& err);

struct FusedCase {
  FusedSpec spec;
  std::vector<float> x, res, w, q, k, v, w_q, w_k;  // inputs (attention: k, v are the caches)
  std::vector<int32_t> pos;
};
FusedCase materialize_fused(const FusedSpec& s);

// Draws a spec for property p and kernel k (inside a RapidCheck property).
FusedSpec gen_fused_spec(const KernelInfo& k, const PropertyInfo& p);

// The primary output of a fused run (y, silu's product, router weights, rotated q, attention
// out) with its reference, for pictures (properties/case_detail.hpp).
struct FusedPrimary {
  Reference ref;
  std::optional<GuardedBuffer> out;
};

// Run kernel k on the case and judge it. nbad includes inadmissible router rows and
// clobbered cache rows; ties counts admitted router near-ties. detail: what the verdict
// line cannot say (which router row, how many cache elements clobbered, near-ties).
CaseOutcome run_fused_case(const KernelInfo& k, const FusedCase& c, std::string* detail = nullptr,
                           FusedPrimary* primary = nullptr);

// The property driver for fused kernels (run_property hands over to it).
PropertyRun run_fused_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt);

}  // namespace qgate
