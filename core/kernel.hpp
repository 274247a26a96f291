// The core of qgate, below kernels/ and backends/ and owned by neither: a production
// kernel as qgate sees it, one point in format x op x backend, with the precision it
// declares (the oracle computes exactly that math), its tile (the generators derive ragged
// shapes from it) and its entry points. Every kernel is registered once, in the backend's
// kernels.inc (the list: kernels/registry.hpp); tests, listings, benchmarks and the mutant
// matrix iterate it. Only oracles/ headers are included here (tools/check_layers.sh).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "oracles/formats/format.hpp"
#include "oracles/ops/fused_math.hpp"
#include "oracles/ops/precision.hpp"

namespace qgate {

enum class Op : int {
  dequant, matmul,
  // Indexed MoE (ggml mul_mat_id): stacked experts, expert ids per token from a tensor
  // (oracles/ops/moe.hpp). A weight op; its kernels launch through KernelInfo::moe.
  moe_matmul,
  // SwiGLU over a merged [W_gate; W_up] weight (2N rows): y[m][i] = silu(g_i) * u_i from one
  // quantization of x shared by both halves. A weight op (it has a format), matmul-shaped.
  gate_up,
  // Fusions and attention (f32 tensors in and out, no quantized weight): their kernels live
  // in fused_kernels(), not all_kernels(), whose users key every kernel by weight format.
  add_rmsnorm, qk_norm_rope, moe_route, silu_mul, attention,
};
inline bool is_fused(Op o) { return static_cast<int>(o) >= static_cast<int>(Op::add_rmsnorm); }
// Every gate_up kernel's shape check on the merged weight (the oracle keeps its own).
inline const char* gate_up_rows_error(int64_t n) {
  return n < 2 || n % 2 ? "gate_up: the merged weight needs an even number of rows (gate rows, then up rows)" : nullptr;
}
inline constexpr Op kFusedOps[] = {Op::add_rmsnorm, Op::qk_norm_rope, Op::moe_route, Op::silu_mul, Op::attention};
enum class BackendId : int { cpu, vulkan, cuda, hip, count };

constexpr std::string_view op_name(Op o) {
  switch (o) {
    case Op::dequant: return "dequant";
    case Op::matmul: return "matmul";
    case Op::moe_matmul: return "moe_matmul";
    case Op::gate_up: return "gate_up";
    case Op::add_rmsnorm: return "add_rmsnorm";
    case Op::qk_norm_rope: return "qk_norm_rope";
    case Op::moe_route: return "moe_route";
    case Op::silu_mul: return "silu_mul";
    case Op::attention: return "attention";
  }
  return "?";
}
constexpr std::string_view backend_name(BackendId b) {
  switch (b) {
    case BackendId::cpu: return "cpu";
    case BackendId::vulkan: return "vulkan";
    case BackendId::cuda: return "cuda";
    case BackendId::hip: return "hip";
    default: return "?";
  }
}

struct Tile {
  int m = 1, n = 1, k = 1;  // output rows per tile (activations), weight rows per tile, k step
};

// CPU entry points take host pointers. A non-null return is an error message (the kernel
// refused its input); it must then leave the output untouched.
using DequantFn = const char* (*)(const uint8_t* w, int64_t n, int64_t k, void* out);
using MatmulFn = const char* (*)(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
// Why this kernel cannot take this tensor (nullptr = it can): e.g. act-order g_idx.
using AcceptsFn = const char* (*)(const QTensor& w);
struct KernelInfo;
class GuardedBuffer;
// Device backends launch through this: upload w (and x for matmul), mirror `out`'s whole
// guarded region on the device, run, and copy the region back.
using LaunchFn = const char* (*)(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out);
struct FusedArgs;  // kernels/cpu/fused_args.hpp: the tensors and parameters of a fused op
using FusedFn = const char* (*)(const FusedArgs& a);
// Op::moe_matmul: w is `experts` stacked experts of w.n / experts rows; ids holds m*top_k
// expert ids (token-major); out receives m*top_k rows of w.n / experts (row t*top_k + s =
// expert ids[t*top_k+s] applied to token t). Host pointers in; device backends upload.
using MoeFn = const char* (*)(const KernelInfo& k, const QTensor& w, int64_t experts, const float* x, int64_t m,
                              const int32_t* ids, int64_t top_k, GuardedBuffer& out);

struct KernelInfo {
  std::string name;
  Op op;
  BackendId backend;
  FormatId format;
  Precision prec;
  Tile tile;
  int max_m = 0;  // matmul: largest M it is meant for (0 = any); decode kernels say 8
  bool deterministic = true;
  DequantFn dequant = nullptr;
  MatmulFn matmul = nullptr;
  AcceptsFn accepts = nullptr;
  LaunchFn launch = nullptr;          // device backends (CPU kernels use dequant / matmul)
  FusedFn fused = nullptr;            // fusion and attention kernels (is_fused(op))
  MoeFn moe = nullptr;                // Op::moe_matmul kernels
  // Fusions and attention: the precision of the attention probabilities P before P.V
  // (f32, f16 or bf16; eager attention materializes P in f32).
  OutType p_type = OutType::f32;
  // Fusions and attention: the precision of the f32 builtins it runs on (exp, division,
  // 1/sqrt, denormals): the CPU's by default (oracles/ops/fused_math.hpp).
  FusedMath math{};
  // Why this kernel cannot run on the device at hand though its backend can (a device
  // feature it needs, e.g. packed int8 dot products); nullptr = it can. Reported skipped.
  const char* (*unavailable)(const KernelInfo& k) = nullptr;
  const void* device_code = nullptr;  // backend-specific (Vulkan: the vk::Shader)
  // Kernels that run in a process of their own (plugins): ends it, so the next launch is
  // the first of a fresh process (the stale-state property compares against that).
  void (*restart)(const KernelInfo& k) = nullptr;
};

}  // namespace qgate
