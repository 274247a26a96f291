#include "oracles/ops/moe.hpp"

#include <cstring>
#include <string>

namespace qgate {

DecodeError moe_matmul_ref(const QTensor& w, int64_t experts, const float* x, int64_t m, const int32_t* ids,
                           int64_t top_k, const Precision& p, Reference& out) {
  if (!w.fmt || w.fmt->tensor_level()) return {"moe_matmul: block formats only"};
  if (experts < 1 || w.n % experts) return {"moe_matmul: " + std::to_string(w.n) + " rows are not " +
                                            std::to_string(experts) + " experts of equal size"};
  if (m < 1 || top_k < 1) return {"moe_matmul: m and top_k must be >= 1"};
  for (int64_t i = 0; i < m * top_k; ++i)
    if (ids[i] < 0 || ids[i] >= experts)
      return {"moe_matmul: expert id " + std::to_string(ids[i]) + " at slot " + std::to_string(i) + " is outside 0.." +
              std::to_string(experts - 1)};
  const int64_t n = w.n / experts;
  size_t row_bytes = 0;
  if (auto e = block_tensor_bytes(*w.fmt, 1, w.k, row_bytes)) return e;
  out = Reference{};
  out.rows = m * top_k;
  out.cols = n;
  out.out = p.out;
  out.value.resize(static_cast<size_t>(out.rows * n));
  out.bound.resize(out.value.size());
  // Per token: the chosen experts' rows gathered in slot order into one tensor of top_k*N
  // rows, contracted with that token alone: row s*N + j of the result is y[t][s][j].
  QTensor g;
  g.fmt = w.fmt;
  g.n = top_k * n;
  g.k = w.k;
  g.bytes.resize(static_cast<size_t>(g.n) * row_bytes);
  for (int64_t t = 0; t < m; ++t) {
    for (int64_t s = 0; s < top_k; ++s)
      std::memcpy(g.bytes.data() + static_cast<size_t>(s * n) * row_bytes,
                  w.bytes.data() + static_cast<size_t>(ids[t * top_k + s] * n) * row_bytes,
                  static_cast<size_t>(n) * row_bytes);
    Reference r;
    if (auto e = matmul_ref(g, x + t * w.k, 1, p, r)) return e;
    std::memcpy(out.value.data() + t * top_k * n, r.value.data(), r.value.size() * sizeof(double));
    std::memcpy(out.bound.data() + t * top_k * n, r.bound.data(), r.bound.size() * sizeof(double));
    out.tie_elements += r.tie_elements;
  }
  return {};
}

}  // namespace qgate
