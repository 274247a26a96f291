// The flash-vs-eager bifurcation probe: greedy-decode the tiny model (fixtures/tinymodel)
// along the fp64 oracle and along every attention kernel of a backend (eager, each flash
// variant), all other ops through that backend's registered kernels. Per path: the first
// token that differs from the oracle's, the oracle's logit margin there and the accumulated
// bound on the path's logit gap; a divergence inside the bound is a numerical near-tie, one
// outside it (or any kernel call outside its own per-op bound) is a defect.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "backends/backend.hpp"
#include "fixtures/tinymodel/tinymodel.hpp"
#include "properties/probes.hpp"
#include "kernels/registry.hpp"

namespace qgate {

ProbeReport bifurcation_probe(BackendId backend, int steps) {
  ProbeReport r;
  const Availability av = probe_backend(backend);
  if (!av.available) {
    r.skipped = true;
    r.summary = std::string(backend_name(backend)) + ": " + av.reason;
    return r;
  }
  tiny::Config cfg;
  if (const char* e = std::getenv("QGATE_TINY_SEED")) cfg.seed = std::strtoull(e, nullptr, 0);
  // QGATE_TINY_EXPERTS=E:K: mixture-of-experts feed-forward layers (E experts, top K routed).
  if (const char* e = std::getenv("QGATE_TINY_EXPERTS")) {
    int ne = 0, nk = 0;
    if (std::sscanf(e, "%d:%d", &ne, &nk) != 2 || ne < 1 || ne > 64 || nk < 1 || nk > ne || nk > 8) {
      r.pass = false;
      r.summary = std::string("QGATE_TINY_EXPERTS='") + e + "': expected E:K with 1 <= K <= min(E, 8), E <= 64";
      return r;
    }
    cfg.n_expert = ne, cfg.expert_top_k = nk;
  }
  const tiny::Model m = tiny::make_model(cfg);
  const std::vector<int> prompt = {1, 17, 256, 42};
  const tiny::Path oracle = tiny::run_oracle(m, prompt, steps);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "tiny model seed 0x%llx: %d layers, d_model %d, %d/%d heads (GQA) x %d, d_ff %d, vocab %d, q8_0 + q4_K; "
                "%sprompt of %zu tokens, %d greedy tokens",
                static_cast<unsigned long long>(cfg.seed), cfg.n_layer, cfg.d_model, cfg.n_head, cfg.n_head_kv,
                cfg.head_dim, cfg.d_ff, cfg.vocab,
                cfg.n_expert ? ("MoE " + std::to_string(cfg.n_expert) + " experts of d_ff/2, top " +
                                std::to_string(cfg.expert_top_k) + " routed; ").c_str()
                             : "",
                prompt.size(), steps);
  r.summary = buf;
  // The closest call along the oracle's own path: where a correct kernel may flip.
  double closest = INFINITY;
  int at = -1;
  for (size_t t = 0; t < oracle.logits.size(); ++t) {
    std::vector<double> l = oracle.logits[t];
    std::partial_sort(l.begin(), l.begin() + 2, l.end(), std::greater<>());
    if (l[0] - l[1] < closest) closest = l[0] - l[1], at = static_cast<int>(t);
  }
  std::vector<int> distinct = oracle.tokens;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::snprintf(buf, sizeof buf, "\n  oracle: %zu distinct tokens of %zu; smallest top1-top2 margin %.4g at token %d",
                distinct.size(), oracle.tokens.size(), closest, at);
  r.summary += buf;
  int paths = 0, defects = 0;
  for (const KernelInfo& k : fused_kernels()) {
    if (k.op != Op::attention || k.backend != backend) continue;
    ++paths;
    const tiny::Path p = tiny::run_kernels(m, k, prompt, steps);
    if (paths == 1 && !p.kernels.empty()) r.summary += "\n  other ops: " + p.kernels;
    const tiny::Divergence dv = tiny::compare(m, oracle, p);
    defects += dv.defect;
    if (dv.diverged)
      std::snprintf(buf, sizeof buf,
                    "\n  %-22s first divergent token %d (oracle %d, path %d): margin %.4g (top1-top2 %.4g), "
                    "accumulated bound %.4g -> %s",
                    k.name.c_str(), dv.step, dv.oracle_token, dv.path_token, dv.margin, dv.top12_margin, dv.bound,
                    dv.defect ? "DEFECT" : "near-tie");
    else
      std::snprintf(buf, sizeof buf, dv.defect ? "\n  %-22s stopped after %zu tokens -> DEFECT" : "\n  %-22s no divergence in %zu tokens",
                    k.name.c_str(), p.tokens.size());
    r.summary += buf;
    if (dv.defect) r.summary += "\n      " + dv.why;
  }
  if (paths == 0) {
    r.summary += "\n  no attention kernel registered for this backend";
    return r;
  }
  r.pass = defects == 0;
  r.summary = std::string(r.pass ? "PASS " : "FAIL ") + r.summary;
  return r;
}

ProbeReport bifurcation_cpu(int steps) { return bifurcation_probe(BackendId::cpu, steps); }
ProbeReport bifurcation_vulkan(int steps) { return bifurcation_probe(BackendId::vulkan, steps); }
ProbeReport bifurcation_cuda(int steps) { return bifurcation_probe(BackendId::cuda, steps); }

}  // namespace qgate
