// CPU indexed MoE (Op::moe_matmul): for every token t and slot s, the format's CPU
// integer-dot mat-vec (the kernel named matmul_<fmt>_<act>_cpu, gated on its own) on the
// rows of expert ids[t][s], with token t's activations. Same arithmetic, same declared
// precision as that mat-vec; the ids are read as given (the oracle rejects bad ones).
#include <string>
#include <vector>

#include "core/guarded.hpp"
#include "core/kernel.hpp"
#include "kernels/registrars.hpp"
#include "kernels/cpu/dequant.hpp"
#include "kernels/cpu/unpack.hpp"
#include "kernels/mutant.hpp"

namespace qgate {
namespace {

template <MatmulFn matvec>
const char* moe_cpu(const KernelInfo& k, const LaunchArgs& a) {
  const QTensor& w = *a.w;
  const int64_t experts = a.experts, m = a.m, top_k = a.top_k;
  const float* x = a.x;
  const int32_t* ids = a.ids;
  if (experts < 1 || w.n % experts) return "moe: the weight rows are not whole experts";
  const int64_t n = w.n / experts;
  size_t row_bytes = 0;
  if (DecodeError e = block_tensor_bytes(*w.fmt, 1, w.k, row_bytes)) return "moe: k is not a whole number of blocks";
  for (int64_t i = 0; i < m * top_k; ++i)
    if (ids[i] < 0 || ids[i] >= experts) return "moe: expert id out of range";
  float* y = reinterpret_cast<float*>(a.out->data());
  for (int64_t t = 0; t < m; ++t)
    for (int64_t s = 0; s < top_k; ++s) {
      int64_t slot = t * top_k + s;
      if (QGATE_MUTANT_ON(cpu_moe_wrong_slot) && k.format == FormatId::q4_K) slot = t * top_k + (s + 1) % top_k;  // planted
      const uint8_t* we = w.bytes.data() + static_cast<size_t>(ids[slot] * n) * row_bytes;
      if (const char* e = matvec(we, n, w.k, x + t * w.k, 1, y + (t * top_k + s) * n)) return e;
    }
  return nullptr;
}

}  // namespace

// Called by the registry once the CPU mat-vecs are in v: each MoE kernel is a copy of its
// mat-vec's entry (precision, tile) with the op, the name and the launch changed; the launch
// calls that mat-vec's function per token and slot.
void add_cpu_moe_kernels(std::vector<KernelInfo>& v) {
  std::vector<KernelInfo> add;
  auto one = [&](FormatId f, ActQuant act, LaunchFn launch) {
    const std::string base = kernel_name("matmul", f, act_name(act), BackendId::cpu);
    for (const KernelInfo& k : v)
      if (k.name == base) {
        KernelInfo e = k;
        e.name = kernel_name("moe_matmul", f, act_name(act), BackendId::cpu);
        e.op = Op::moe_matmul;
        e.max_m = 0;
        e.launch = launch;
        add.push_back(e);
      }
  };
#define QGATE_CPU_MOE(fmt, act) \
  one(FormatId::fmt, ActQuant::act, moe_cpu<cpu::matvec_qact<cpu::Unpack_##fmt, ActQuant::act>>);
#include "kernels/cpu/moe.inc"
#undef QGATE_CPU_MOE
  v.insert(v.end(), add.begin(), add.end());
}

}  // namespace qgate
