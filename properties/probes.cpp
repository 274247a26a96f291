#include "properties/probes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/backend.hpp"
#include "properties/gen/materialize.hpp"

#ifdef QGATE_HAVE_VULKAN
#include "kernels/vulkan/replay_chain.hpp"
#endif
#ifdef QGATE_HAVE_CUDA
#include "kernels/cuda/replay_chain.hpp"
#endif

namespace qgate {
ProbeReport bifurcation_cpu(int steps);  // properties/bifurcation.cpp
ProbeReport bifurcation_vulkan(int steps);
ProbeReport bifurcation_cuda(int steps);
namespace {

// The replay probe of a backend's decode-step chain (core/decode_chain.hpp): the chain
// captured once (a recorded command buffer, a CUDA graph), replayed with new inputs at every
// step, each step compared bit for bit with an eager run of the same step.
using MakeChain = std::unique_ptr<DecodeChain> (*)(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                                   std::string& err);
ProbeReport replay_probe(BackendId backend, MakeChain make, int steps, const char* what) {
  ProbeReport r;
  const Availability a = probe_backend(backend);
  if (!a.available) {
    r.skipped = true;
    r.summary = std::string(backend_name(backend)) + ": " + a.reason;
    return r;
  }
  constexpr uint32_t d = 128, n = 64, first_pos = 3;
  std::string err;
  auto chain = make(d, n, first_pos + static_cast<uint32_t>(steps) + 1, 0x5eed, err);
  if (!chain) {
    r.summary = "cannot build the chain: " + err;
    return r;
  }
  Rng rng(0xC0FFEE);
  int first_bad = -1, compared = 0;
  double max_diff = 0;
  auto diff = [&](const std::vector<uint32_t>& u, const std::vector<uint32_t>& v) {
    for (size_t i = 0; i < u.size(); ++i) {
      float fu, fv;
      std::memcpy(&fu, &u[i], 4);
      std::memcpy(&fv, &v[i], 4);
      max_diff = std::max(max_diff, std::fabs(static_cast<double>(fu) - fv));
    }
  };
  for (int t = 0; t < steps; ++t) {
    std::vector<float> x(d);
    for (float& v : x) v = static_cast<float>(rng.uniform() * 2 - 1);
    const uint32_t pos = first_pos + static_cast<uint32_t>(t);
    ChainOutputs e, p;
    if (err = chain->eager_step(x, pos, e); !err.empty()) break;
    if (t == 0 && (err = chain->capture(pos), !err.empty())) break;
    if (err = chain->replay_step(x, pos, p); !err.empty()) break;
    ++compared;
    if (e.y == p.y && e.kvsum == p.kvsum) continue;
    diff(e.y, p.y);
    diff(e.kvsum, p.kvsum);
    if (first_bad < 0) first_bad = t;
  }
  char buf[320];
  if (!err.empty()) {
    r.summary = "probe error: " + err;
  } else if (first_bad >= 0) {
    std::snprintf(buf, sizeof buf, "FAIL replay diverges from eager: first divergent step %d (1-based; of %d), max |diff| %.3g",
                  first_bad + 1, compared, max_diff);
    r.summary = buf;
  } else {
    r.pass = true;
    std::snprintf(buf, sizeof buf, "PASS %d steps replayed, every step bit-identical to eager (%s)", compared, what);
    r.summary = buf;
  }
  return r;
}

#ifdef QGATE_HAVE_VULKAN
ProbeReport replay_vulkan(int steps) {
  return replay_probe(BackendId::vulkan, vkk::make_decode_chain, steps,
                      "recorded command buffer: rope_kv -> matvec q8_0 -> kv_sum");
}
#endif

#ifdef QGATE_HAVE_CUDA
ProbeReport replay_cuda(int steps) {
  return replay_probe(BackendId::cuda, cuk::make_decode_chain, steps,
                      "one CUDA graph: rope_kv -> quantize q8_1 -> matvec q8_0 -> kv_sum");
}
#endif

constexpr std::string_view kBifurcation =
    "greedy-decode a tiny q8_0/q4_K model along the fp64 oracle and along each attention kernel of the backend (eager, "
    "flash P f32/f16/bf16), every other op on the backend's own kernels: first divergent token, margin vs accumulated "
    "bound, near-tie or defect";

const std::vector<ProbeInfo>& table() {
  static const std::vector<ProbeInfo> t = {
      {"bifurcation", BackendId::cpu, kBifurcation, bifurcation_cpu},
#ifdef QGATE_HAVE_VULKAN
      {"bifurcation", BackendId::vulkan, kBifurcation, bifurcation_vulkan},
      {"replay", BackendId::vulkan,
       "a decode step (RoPE at a device-side position, KV-cache append, mat-vec, cache read) recorded once and replayed with new inputs vs re-recorded every step",
       replay_vulkan},
#endif
#ifdef QGATE_HAVE_CUDA
      {"bifurcation", BackendId::cuda, kBifurcation, bifurcation_cuda},
      {"replay", BackendId::cuda,
       "a decode step (RoPE at a device-side position, KV-cache append, q8_1 quantization, int8-dot mat-vec, cache read) captured once as a CUDA graph and replayed with new inputs vs run eagerly",
       replay_cuda},
#endif
  };
  return t;
}

}  // namespace

std::span<const ProbeInfo> all_probes() { return table(); }

const ProbeInfo* find_probe(std::string_view name, BackendId backend) {
  for (const ProbeInfo& p : table())
    if (p.name == name && p.backend == backend) return &p;
  return nullptr;
}

const ProbeInfo* probe_from_target(std::string_view target) {
  if (target.rfind("probe:", 0) != 0) return nullptr;
  const std::string_view rest = target.substr(6);
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return nullptr;
  for (BackendId b : kAllBackends)
    if (backend_name(b) == rest.substr(colon + 1)) return find_probe(rest.substr(0, colon), b);
  return nullptr;
}

}  // namespace qgate
