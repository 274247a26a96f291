// The planted CUDA defects (kernels/mutants.inc: cuda_*), compiled into the mutant build
// of the kernels only: the production mat-vec template with one defect switched on.

#include "kernels/cuda/gemm.cuh"
#include "kernels/cuda/matvec.cuh"
#include "kernels/cuda/moe.cuh"
#include "kernels/cuda/replay_chain.cuh"

namespace qgate::cuk {

// A mat-vec entry point (launchers.hpp's MatvecLaunch) running the kernel with a planted defect.
#define QGATE_CUDA_MATVEC_MUTANT(name, fmt, act, mut)                                                         \
  void name(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m, int64_t ldy,        \
            const IqTables& t, void* stream) {                                                                \
    launch_matvec<Fmt_##fmt, kAct_##act, mut>(w, xq, y, n, k, m, ldy, t, stream);                            \
  }

// Elements 0..15 of each 32 read from 16..31.
QGATE_CUDA_MATVEC_MUTANT(mutant_matvec_q4_0_crossed_lanes, q4_0, q8_1, kMutCrossedLanes)
// Accumulator rows past m written.
QGATE_CUDA_MATVEC_MUTANT(mutant_matvec_q4_K_rows_past_m, q4_K, q8_K, kMutRowsPastM)
// The mat-vec's grid capped at the blocks the device runs at once, with no loop over the rest.
QGATE_CUDA_MATVEC_MUTANT(mutant_matvec_q8_0_grid_capped, q8_0, q8_1, kMutGridCapped)
// The mat-vec running one pass of its K loop (kMatvecThreads chunks of 32): rows longer than
// 4096 elements lose their tail.
QGATE_CUDA_MATVEC_MUTANT(mutant_matvec_q4_K_single_sweep, q4_K, q8_K, kMutSingleSweep)
#undef QGATE_CUDA_MATVEC_MUTANT

// The GEMM's shared-memory tiles used without the cp.async wait and the barriers after the load.
void mutant_gemm_q4_0_missing_sync(const GemmArgs& a, void* stream) {
  launch_gemm<BlockWeights<Fmt_q4_0>, kGemmAct_q8_1, kGemmMutMissingSync>(a, stream);
}
// Split-K with the short last split's partial not added.
void mutant_gemm_q4_K_split_unreduced(const GemmArgs& a, void* stream) {
  launch_gemm<BlockWeights<Fmt_q4_K>, kGemmAct_q8_K, kGemmMutSplitUnreduced>(a, stream);
}

// Indexed MoE reading each slot's expert id from the token's next slot.
void mutant_moe_matvec_q4_K_wrong_slot(const uint8_t* w, const uint8_t* xq, const int32_t* ids, float* y, int64_t n,
                                       int64_t k, int m, int top_k, int experts, const IqTables& t, void* stream) {
  launch_moe_matvec<Fmt_q4_K, kAct_q8_K, kMoeMutWrongSlot>(w, xq, ids, y, n, k, m, top_k, experts, t, stream);
}

// The decode step's position passed by value: a captured graph replays the capture's value.
void mutant_rope_kv_pos_by_value(const float* x, uint32_t pos, float* xr, float* kv, uint32_t d, void* stream) {
  launch_rope_kv<true>(x, nullptr, pos, xr, kv, d, stream);
}

}  // namespace qgate::cuk
