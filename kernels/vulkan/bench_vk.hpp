// Vulkan speed measurements for `qgate bench --backend vulkan` (never part of the tests):
// device-local buffers, device timestamps around each dispatch, and a read-stream ceiling
// measured in the same process, so every figure can be stated as a ratio to it.
#pragma once
#include <cstddef>
#include <string>

#include "core/kernel.hpp"

namespace qgate::vkk {

struct BenchTiming {
  double median_ns = 0, min_ns = 0;
  int samples = 0;
  std::string stats;  // the compiler's statistics of the pipeline, where the device gives them
};

// Read `bytes` of device-local memory with 16-byte loads, `reps` times (one warm-up round
// more), over `copies` buffers taken in turn (each dispatch timed alone, as a mat-vec is).
// independent: without barriers between the dispatches, the chain timed as a whole.
std::string bench_stream(size_t bytes, int reps, BenchTiming& out, int copies = 1, bool independent = false);

// Why the bench cannot drive k (nullptr: it can).
const char* bench_unsupported(const KernelInfo& k);

// A registered Vulkan mat-vec (f32 or int8 path) at M = 1 over `copies` device-local copies
// of w taken in turn (so that, with copies x bytes well past the last-level cache, each
// dispatch reads its weights from DRAM); activations quantized once beforehand where the
// kernel quantizes them. The time of each dispatch, warm-up round dropped; independent:
// the dispatches without barriers between them (as independent mat-vecs of one layer, e.g.
// Q, K, V, could run), the chain's time divided by its length.
std::string bench_matvec(const KernelInfo& k, const QTensor& w, const float* x, int copies, int reps,
                         BenchTiming& out, bool independent = false);

}  // namespace qgate::vkk
