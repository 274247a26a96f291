// CUDA speed measurements for `qgate bench --backend cuda` (never part of the tests):
// device timing by events around each launch, weights rotated over copies so each
// launch reads them from DRAM, and the ceilings measured in the same process (a read
// stream for the mat-vec, a register-resident int8 tile-product loop for the GEMM).
// Weights are pseudo-random bytes filled on the device: speed does not depend on the
// values (the gate proves the kernels right), and a 32768 x 16384 tensor would take the
// host generator longer than every measurement together.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/kernel.hpp"

namespace qgate::cuk::bench {

struct Timing {
  double median_ms = 0, min_ms = 0;
  int samples = 0;
};

// ---- device side (bench_cuda.cu) ----
void fill_bytes(void* p, size_t bytes, uint32_t seed, void* stream);
void read_stream(const void* p, size_t bytes, unsigned* sink, void* stream);
// `iters` rounds of 4 independent m16n8k32 int8 tile products per tile group, from registers.
void mma_loop(int blocks, int threads, int iters, int* sink, void* stream);
void f32_to_f16(const float* x, uint16_t* y, int64_t n, void* stream);
void fill_f16(uint16_t* p, size_t n, uint32_t seed, void* stream);  // finite, |v| < 1
// Runs launch(i) for i = 0..reps (the first round a warm-up, dropped), an event pair around each.
std::string time_each(const std::function<void(int)>& launch, int reps, Timing& t, void* stream);

// ---- host side (bench_cuda.cpp) ----
std::string stream_ceiling(size_t bytes, int reps, Timing& t);          // GB/s = bytes / t
std::string mma_ceiling(int reps, Timing& t, double& ops);               // TOPS = ops / t
// A registered CUDA mat-vec (max_m > 0) at M = 1, or GEMM (max_m == 0) at M = m, on an
// n x k weight; weights rotated over `copies` (mat-vec), activations quantized once first.
std::string time_kernel(const KernelInfo& k, int64_t m, int64_t n, int64_t kk, int copies, int reps, Timing& t,
                        size_t& weight_bytes);
// Dequantize the same kind of weight to f16 (our dequant kernel), x to f16, then cuBLAS
// GemmEx f16 x f16 -> f32 with f32 compute (loaded at run time: libcublas.so.13), each timed
// on its own (dequant.samples = 0: no CUDA dequant for the format). `why` says why not
// when cuBLAS cannot be loaded.
std::string time_cublas_f16(FormatId f, int64_t m, int64_t n, int64_t kk, int reps, Timing& gemm, Timing& dequant,
                            std::string& why);

}  // namespace qgate::cuk::bench
