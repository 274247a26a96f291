// SwiGLU over a merged weight w = [W_gate; W_up] (n = 2N rows, gate rows first): one
// quantization of each activation row serves both halves (matvec_qact quantizes x once for
// all n rows), then y[m][i] = silu(g_i) * u_i in f32, the same arithmetic as silu_mul_f32.
// Declared precision: the mat-vec's (oracles/ops/fusion.hpp gate_up_ref adds the epilogue).
#include <cmath>
#include <vector>

#include "kernels/cpu/dequant.hpp"
#include "kernels/cpu/unpack.hpp"
#include "core/kernel.hpp"
#include "kernels/mutant.hpp"

namespace qgate::cpu {

template <class U, ActQuant A>
const char* gate_up_qact(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y) {
  if (const char* e = gate_up_rows_error(n)) return e;
  std::vector<float> gu(static_cast<size_t>(m * n));
  if (const char* e = matvec_qact<U, A>(w, n, k, x, m, gu.data())) return e;
  const int64_t h = n / 2;
  // The mutant reads the merged weight as interleaved (gate row i, up row i at 2i, 2i + 1).
  const bool interleaved = QGATE_MUTANT_ON(cpu_gate_up_interleaved);
  float* out = static_cast<float*>(y);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t i = 0; i < h; ++i) {
      const float g = gu[r * n + (interleaved ? 2 * i : i)], u = gu[r * n + (interleaved ? 2 * i + 1 : h + i)];
      out[r * h + i] = g / (1.0f + std::exp(-g)) * u;
    }
  return nullptr;
}

#define QGATE_GATE_UP_cpu(fmt, act) \
  template const char* gate_up_qact<Unpack_##fmt, ActQuant::act>(const uint8_t*, int64_t, int64_t, const float*, int64_t, void*);
#include "kernels/gate_up.inc"
#undef QGATE_GATE_UP_cpu

}  // namespace qgate::cpu
