// The planted CUDA defects (kernels/mutants.inc: cuda_*), compiled into the mutant build
// of the kernels only: the production mat-vec template with one defect switched on.

#include "kernels/cuda/gemm.cuh"
#include "kernels/cuda/matvec.cuh"
#include "kernels/cuda/moe.cuh"
#include "kernels/cuda/replay_chain.cuh"

namespace qgate::cuk {

void mutant_matvec_q4_0_crossed_lanes(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                                      int64_t ldy, const IqTables& t, void* stream) {
  launch_matvec<Fmt_q4_0, kAct_q8_1, kMutCrossedLanes>(w, xq, y, n, k, m, ldy, t, stream);
}
void mutant_matvec_q4_K_rows_past_m(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                                    int64_t ldy, const IqTables& t, void* stream) {
  launch_matvec<Fmt_q4_K, kAct_q8_K, kMutRowsPastM>(w, xq, y, n, k, m, ldy, t, stream);
}
// The mat-vec's grid capped at the blocks the device runs at once, with no loop over the rest.
void mutant_matvec_q8_0_grid_capped(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                                    int64_t ldy, const IqTables& t, void* stream) {
  launch_matvec<Fmt_q8_0, kAct_q8_1, kMutGridCapped>(w, xq, y, n, k, m, ldy, t, stream);
}

// The mat-vec running one pass of its K loop (kMatvecThreads chunks of 32): rows longer than
// 4096 elements lose their tail.
void mutant_matvec_q4_K_single_sweep(const uint8_t* w, const uint8_t* xq, float* y, int64_t n, int64_t k, int m,
                                     int64_t ldy, const IqTables& t, void* stream) {
  launch_matvec<Fmt_q4_K, kAct_q8_K, kMutSingleSweep>(w, xq, y, n, k, m, ldy, t, stream);
}

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
