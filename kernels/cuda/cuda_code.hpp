// What KernelInfo::device_code points to for a CUDA kernel (registry_cuda.cpp fills it,
// launch.cpp reads it): the format's launchers from kernels.inc.
#pragma once
#include <string>
#include <vector>

#include "kernels/cuda/launchers.hpp"
#include "core/kernel.hpp"

namespace qgate::cuk {

struct Code {
  DequantLaunch dequant = nullptr;
  MatvecLaunch matvec = nullptr;  // nullptr: dequant-only format
  int block_elems = 0;            // the weight format's block (32 for gptq_int4: the k unit)
  GemmLaunch gemm = nullptr;      // the prefill GEMM's code (a Code of its own)
  bool gptq = false;              // the weight is a GPTQ container (gemm only)
  MoeMatvecLaunch moe_matvec = nullptr;  // indexed MoE, decode (a Code of its own)
  MoeGemmLaunch moe_gemm = nullptr;      // indexed MoE, expert-grouped GEMM (a Code of its own)
};

// The LaunchFn of every CUDA kernel (launch.cpp).
const char* launch_dequant(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out);
const char* launch_matvec(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out);
const char* launch_gemm(const KernelInfo& k, const QTensor& w, const float* x, int64_t m, GuardedBuffer& out);
const char* launch_moe(const KernelInfo& k, const QTensor& w, int64_t experts, const float* x, int64_t m,
                       const int32_t* ids, int64_t top_k, GuardedBuffer& out);

// The IQ codebooks on the device (uploaded once per process); nullptr and why not.
const IqTables* device_tables(std::string& err);

// Quantizes m rows of k activations on the device and downloads the blocks (the test of
// the device quantizers against the oracle's bytes). "" or why not.
std::string quantize_act_on_device(ActQuant a, const float* x, int64_t m, int64_t k, std::vector<uint8_t>& blocks);

}  // namespace qgate::cuk
