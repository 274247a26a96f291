// The core of qgate, below kernels/ and backends/ and owned by neither: a production
// kernel as qgate sees it, one point in format x op x backend, with the precision it
// declares (the oracle computes exactly that math), its tile (the generators derive ragged
// shapes from it) and its entry points. Every kernel is registered once, in the backend's
// kernels.inc (the list: kernels/registry.hpp); tests, listings, benchmarks and the mutant
// matrix iterate it. Only oracles/ headers are included here (tools/check_layers.sh).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
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

// The naming rule's last part: a kernel is <what it computes>_<suffix of its backend>.
constexpr std::string_view kernel_suffix(BackendId b) {
  switch (b) {
    case BackendId::cpu: return "cpu";
    case BackendId::vulkan: return "vk";
    case BackendId::cuda: return "cuda";
    case BackendId::hip: return "hip";
    default: return "?";
  }
}

// The naming rule of every weight kernel: <entry>_<format>_<operand>_<backend suffix>[variant].
// entry: dequant, matmul (the decode mat-vec), gemm (tiled, any M), moe_matmul / moe_matvec /
// moe_gemm, gate_up; operand: a dequant's output type (out_name), otherwise the activation
// type (act_name: f32 where not quantized); variant: a second build of the same kernel on the
// same backend (Vulkan's "dot": on the packed int8 dot product). Fusions: <stem>_<suffix>.
inline std::string kernel_name(std::string_view entry, FormatId f, std::string_view operand, BackendId b,
                               std::string_view variant = {}) {
  std::string n(entry);
  n.append("_").append(format_info(f).name).append("_").append(operand).append("_").append(kernel_suffix(b));
  return n.append(variant);
}

// The naming rule of a fusion or attention kernel (kernels/fused.inc): <stem>_<backend suffix>.
inline std::string fused_kernel_name(std::string_view stem, BackendId b) {
  return std::string(stem).append("_").append(kernel_suffix(b));
}

struct Tile {
  int m = 1, n = 1, k = 1;  // output rows per tile (activations), weight rows per tile, k step
};

// The plain host signatures of CPU kernels (and of an engine's own host functions):
// host pointers in and out. A non-null return is an error message (the kernel refused its
// input); it must then leave the output untouched. core/launch_adapters.hpp adapts them to
// LaunchFn.
using DequantFn = const char* (*)(const uint8_t* w, int64_t n, int64_t k, void* out);
using MatmulFn = const char* (*)(const uint8_t* w, int64_t n, int64_t k, const float* x, int64_t m, void* y);
// Why this kernel cannot take this tensor (nullptr = it can): e.g. act-order g_idx.
using AcceptsFn = const char* (*)(const QTensor& w);
struct KernelInfo;
class GuardedBuffer;  // core/guarded.hpp
struct FusedArgs;     // core/fused_args.hpp: the tensors and parameters of a fused op

// One launch of a kernel of any op on any backend: what it reads and where it writes.
// Host pointers throughout; a device backend uploads the inputs, mirrors `out`'s whole
// guarded region (redzones included) on the device, runs, and copies the region back.
struct LaunchArgs {
  // Weight ops (dequant, matmul, gate_up, moe_matmul): the weight, the M activation rows
  // (not read by dequant) and the guarded output.
  const QTensor* w = nullptr;
  const float* x = nullptr;
  int64_t m = 0;
  GuardedBuffer* out = nullptr;
  // Op::moe_matmul: w is `experts` stacked experts of w->n / experts rows; ids holds
  // m*top_k expert ids (token-major); out receives m*top_k rows of w->n / experts (row
  // t*top_k + s = expert ids[t*top_k+s] applied to token t).
  int64_t experts = 0;
  const int32_t* ids = nullptr;
  int64_t top_k = 0;
  // Fusions and attention (is_fused(op)): their tensors, outputs and guards.
  const FusedArgs* fused = nullptr;

  static LaunchArgs weight(const QTensor& w, const float* x, int64_t m, GuardedBuffer& out) {
    LaunchArgs a;
    a.w = &w, a.x = x, a.m = m, a.out = &out;
    return a;
  }
  static LaunchArgs moe(const QTensor& w, int64_t experts, const float* x, int64_t m, const int32_t* ids,
                        int64_t top_k, GuardedBuffer& out) {
    LaunchArgs a = weight(w, x, m, out);
    a.experts = experts, a.ids = ids, a.top_k = top_k;
    return a;
  }
  static LaunchArgs of(const FusedArgs& f) {
    LaunchArgs a;
    a.fused = &f;
    return a;
  }
};
// The one entry point of every kernel, whatever its op and backend. A non-null return is
// an error message (the kernel refused its input or the device failed); the output is then
// not judged.
using LaunchFn = const char* (*)(const KernelInfo& k, const LaunchArgs& a);
// A failed launch's message, kept per thread until the next failure: launch_failed(msg)
// keeps it and returns it for the LaunchFn to return; launch_failure() reads it again.
inline std::string& launch_failure() {
  static thread_local std::string msg;
  return msg;
}
inline const char* launch_failed(std::string msg) {
  launch_failure() = std::move(msg);
  return launch_failure().c_str();
}

struct KernelInfo {
  std::string name;
  Op op;
  BackendId backend;
  FormatId format;
  Precision prec;
  Tile tile;
  int max_m = 0;  // matmul: largest M it is meant for (0 = any); decode kernels say 8
  bool deterministic = true;
  LaunchFn launch = nullptr;
  AcceptsFn accepts = nullptr;
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
