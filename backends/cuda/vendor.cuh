// The one vendor header of the CUDA backend (as ggml's vendors/cuda.h / hip.h): every
// CUDA-only name the runtime and the kernels use is spelled here, once, as a gpu* / qg_*
// name, so HIP compiles the same sources by switching this header (QGATE_HIP below).
// Outside this file: no cuda* API, no CUDA-only intrinsic, and no warp width in logic
// (kernels reduce through shared memory, for any block size; qg_warp_size() is for tuning).
#pragma once

// HIP: kernels/hip/hip.cmake defines QGATE_HIP; hipcc and clang -x hip also define __HIP__.
#if defined(QGATE_HIP) || defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuErrorNoDevice hipErrorNoDevice
#define gpuErrorInsufficientDriver hipErrorInsufficientDriver
#define gpuGetErrorString hipGetErrorString
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuSetDevice hipSetDevice
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStream_t hipStream_t
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamBeginCapture hipStreamBeginCapture
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define gpuGraph_t hipGraph_t
#define gpuGraphExec_t hipGraphExec_t
#define gpuGraphInstantiate(exec, graph) hipGraphInstantiate(exec, graph, nullptr, nullptr, 0)
#define gpuGraphLaunch hipGraphLaunch
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExecDestroy hipGraphExecDestroy
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuGetDevice hipGetDevice
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
// Shared memory above the static 48 KiB needs a dynamic allocation and an opt-in on CUDA;
// the AMD targets have 64 KiB of LDS per workgroup at most, so kernels there declare it
// statically (which the census then counts).
#define QG_DYN_SMEM 0
using qg_half = __half;
// ROCm 5.2 (Debian 12) has no hip_bf16.h: a bf16 is its 16 bits here, rounded by
// qg_float_to_bf16_bits below.
using qg_bf16 = unsigned short;
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuErrorNoDevice cudaErrorNoDevice
#define gpuErrorInsufficientDriver cudaErrorInsufficientDriver
#define gpuGetErrorString cudaGetErrorString
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuSetDevice cudaSetDevice
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStream_t cudaStream_t
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamBeginCapture cudaStreamBeginCapture
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define gpuGraph_t cudaGraph_t
#define gpuGraphExec_t cudaGraphExec_t
#define gpuGraphInstantiate(exec, graph) cudaGraphInstantiate(exec, graph, 0)
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExecDestroy cudaGraphExecDestroy
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuGetDevice cudaGetDevice
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define QG_DYN_SMEM 1
using qg_half = __half;
using qg_bf16 = __nv_bfloat16;
#endif

// The second argument of __launch_bounds__ (blocks a multiprocessor should fit): CUDA reads
// it as a register cap per thread; HIP as waves per SIMD, which on the 64-wide targets caps
// a 256-thread GEMM block's VGPRs at 256 and makes it spill, so HIP gets 1 (no cap).
// QG_UNROLL_REGS: a loop unrolled where the register file allows it: on CUDA; one iteration
// at a time on HIP (the GEMM's chunk loop unrolled needs > 256 VGPRs there, its tile
// products being the portable shuffle form).
// QG_UNROLL_REGS_BY(n): the same with at most n iterations unrolled on CUDA (n an integral
// constant expression: a name in scope).
#define QG_PRAGMA(x) _Pragma(#x)
#if defined(QGATE_HIP) || defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
#define QG_MIN_BLOCKS(n) 1
#define QG_UNROLL_REGS _Pragma("unroll 1")
#define QG_UNROLL_REGS_BY(n) _Pragma("unroll 1")
#else
#define QG_MIN_BLOCKS(n) n
#define QG_UNROLL_REGS _Pragma("unroll")
#define QG_UNROLL_REGS_BY(n) QG_PRAGMA(unroll n)
#endif

#if defined(QGATE_HIP) || defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
#if defined(__HIPCC__) || defined(__HIP__)
// ---- AMD targets: one trait per target, where AMD needs its own instruction ----
// QG_AMD_WAVE: the hardware SIMD width at the compiler's default (64 on CDNA, 32 on RDNA).
// QG_AMD_DOT: how a signed 4 x int8 dot product is issued: 1 = v_dot4_i32_i8
//   (dot1-insts, __builtin_amdgcn_sdot4), 8 = v_dot4_i32_iu8 (dot8-insts,
//   __builtin_amdgcn_sudot4, both operands signed), 0 = the portable byte-wise sum.
// Checked against clang-19: sdot4 compiles for gfx90a/gfx942/gfx1030 only, sudot4 for
// gfx1100/gfx1151/gfx1201 only. A target not listed gets the portable sum, never a guess.
#if defined(__gfx90a__)       // CDNA2 (MI200)
#define QG_AMD_WAVE 64
#define QG_AMD_DOT 1
#elif defined(__gfx942__)     // CDNA3 (MI300)
#define QG_AMD_WAVE 64
#define QG_AMD_DOT 1
#elif defined(__gfx1030__)    // RDNA2
#define QG_AMD_WAVE 32
#define QG_AMD_DOT 1
#elif defined(__gfx1100__)    // RDNA3
#define QG_AMD_WAVE 32
#define QG_AMD_DOT 8
#elif defined(__gfx1151__)    // RDNA3.5 (Strix Halo)
#define QG_AMD_WAVE 32
#define QG_AMD_DOT 8
#elif defined(__gfx1201__)    // RDNA4
#define QG_AMD_WAVE 32
#define QG_AMD_DOT 8
#else                         // the host pass, or a target without a trait line
#define QG_AMD_WAVE 64
#define QG_AMD_DOT 0
#endif

// No device libraries (clang-19 -nogpulib for targets Debian's ROCm 5.2 bitcode does not
// cover): the ROCm headers' blockIdx/threadIdx/blockDim/gridDim and math call __ockl_* /
// __ocml_*, which would stay unresolved in the code object. Here they lower to the amdgcn
// builtins instead; kernels/hip/hip.cmake fails the build if any symbol stays undefined.
#if defined(QGATE_HIP_NO_DEVICE_LIBS) && defined(__HIP_DEVICE_COMPILE__)
namespace qg_amdgcn {
// The HSA kernel dispatch packet: workgroup_size_{x,y,z} u16 at byte 4, grid_size_{x,y,z}
// (in work-items) u32 at byte 12 (hsa.h); the same in every code-object ABI version.
__device__ __forceinline__ unsigned wg_size(int d) {
  return reinterpret_cast<const unsigned short*>(static_cast<const char*>(__builtin_amdgcn_dispatch_ptr()) + 4)[d];
}
__device__ __forceinline__ unsigned grid_size(int d) {
  return reinterpret_cast<const unsigned*>(static_cast<const char*>(__builtin_amdgcn_dispatch_ptr()) + 12)[d];
}
template <int D> struct group_id {
  __device__ operator unsigned() const {
    return D == 0 ? __builtin_amdgcn_workgroup_id_x() : D == 1 ? __builtin_amdgcn_workgroup_id_y()
                                                               : __builtin_amdgcn_workgroup_id_z();
  }
};
template <int D> struct item_id {
  __device__ operator unsigned() const {
    return D == 0 ? __builtin_amdgcn_workitem_id_x() : D == 1 ? __builtin_amdgcn_workitem_id_y()
                                                              : __builtin_amdgcn_workitem_id_z();
  }
};
template <int D> struct block_dim {
  __device__ operator unsigned() const { return wg_size(D); }
};
template <int D> struct grid_dim {
  __device__ operator unsigned() const { return (grid_size(D) + wg_size(D) - 1) / wg_size(D); }
};
template <template <int> class T> struct dim3_of { T<0> x; T<1> y; T<2> z; };
}  // namespace qg_amdgcn
#define blockIdx (::qg_amdgcn::dim3_of<::qg_amdgcn::group_id>{})
#define threadIdx (::qg_amdgcn::dim3_of<::qg_amdgcn::item_id>{})
#define blockDim (::qg_amdgcn::dim3_of<::qg_amdgcn::block_dim>{})
#define gridDim (::qg_amdgcn::dim3_of<::qg_amdgcn::grid_dim>{})
// The workgroup barrier with its LDS fences (ROCm 5.2's goes through the device library's
// __atomic_work_item_fence); the same sequence newer HIP headers emit.
namespace qg_amdgcn {
__device__ __forceinline__ void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
}  // namespace qg_amdgcn
#define __syncthreads() ::qg_amdgcn::syncthreads()
// The __ocml_* entry points the ROCm 5.2 math headers call for the functions these kernels
// use, each an exactly rounded operation with an LLVM intrinsic of the same meaning.
// (cosf/sinf/exp2f/log2f of the replay probe lower to the hardware's approximations
// instead of ocml's: the probe compares replay with eager on one device, so only the
// code's shape matters for the census; a run on AMD hardware uses the hipcc build.)
// QGATE_HIP_OCML_SHIMS lists them; kernels/hip/hip.cmake reports any other left undefined.
extern "C" {
__device__ double __ocml_ldexp_f64(double x, int e) { return __builtin_ldexp(x, e); }
__device__ float __ocml_fabs_f32(float x) { return __builtin_fabsf(x); }
__device__ float __ocml_fmax_f32(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ float __ocml_round_f32(float x) { return __builtin_roundf(x); }
__device__ float __ocml_rint_f32(float x) { return __builtin_rintf(x); }
__device__ int __ocml_isfinite_f32(float x) { return __builtin_isfinite(x); }
__device__ float __ocml_exp2_f32(float x) { return __builtin_exp2f(x); }
__device__ float __ocml_log2_f32(float x) { return __builtin_log2f(x); }
__device__ float __ocml_cos_f32(float x) { return __builtin_cosf(x); }
__device__ float __ocml_sin_f32(float x) { return __builtin_sinf(x); }
// The fusion and attention kernels' expf and sqrtf (fused_*.cu; census only, as above).
__device__ float __ocml_exp_f32(float x) { return __builtin_expf(x); }
__device__ float __ocml_sqrt_f32(float x) { return __builtin_sqrtf(x); }
}
#endif

// ---- device intrinsics, each with its IEEE meaning stated (no fast math anywhere) ----

// sum of the four signed byte products of a and b, plus c (exact integer arithmetic,
// wrapping like __dp4a).
__device__ __forceinline__ int qg_dp4a(int a, int b, int c) {
#if QG_AMD_DOT == 1
  return __builtin_amdgcn_sdot4(a, b, c, false);
#elif QG_AMD_DOT == 8
  return __builtin_amdgcn_sudot4(true, a, true, b, c, false);
#else
  int s = c;
#pragma unroll
  for (int l = 0; l < 32; l += 8) s += int(static_cast<signed char>(a >> l)) * int(static_cast<signed char>(b >> l));
  return s;
#endif
}
// The same with the bytes of a unsigned (0..255) and those of b signed.
__device__ __forceinline__ int qg_dp4a_us(unsigned a, int b, int c) {
#if QG_AMD_DOT == 8
  return __builtin_amdgcn_sudot4(false, int(a), true, b, c, false);
#else
  int s = c;
#pragma unroll
  for (int l = 0; l < 32; l += 8) s += int((a >> l) & 0xFFu) * int(static_cast<signed char>(b >> l));
  return s;
#endif
}
// double -> float rounded toward zero (the first step of a round-to-odd conversion).
// Not __double2float_rz: ROCm 5.2 defines it as (float)x, i.e. round to NEAREST, which
// would break the round-to-odd f16/bf16 dequant. Round to nearest, then step one ulp
// toward zero where that rounded away from zero (exact: |f| > |v| means f != 0; the
// integer decrement of the magnitude is the next float toward zero, subnormals and
// FLT_MAX from infinity included; NaN compares false and stays).
__device__ __forceinline__ float qg_double_to_float_rz(double v) {
  const float f = float(v);
  return __builtin_fabs(double(f)) > __builtin_fabs(v) ? __uint_as_float(__float_as_uint(f) - 1u) : f;
}
// float -> f16 / bf16 bits, round to nearest even (IEEE).
__device__ __forceinline__ unsigned short qg_float_to_f16_bits(float v) {
  return __half_as_ushort(__float2half_rn(v));
}
// bf16 by integer round-to-nearest-even on the f32 bits (no hip_bf16.h in ROCm 5.2);
// a NaN stays a (quiet) NaN.
__device__ __forceinline__ unsigned short qg_float_to_bf16_bits(float v) {
  const unsigned u = __float_as_uint(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
// Width of the hardware SIMD group (the target trait). Never assumed by correctness-bearing
// logic here.
__device__ __forceinline__ int qg_warp_size() { return QG_AMD_WAVE; }
// IEEE binary16 bits -> float (exact).
__device__ __forceinline__ float qg_f16_bits_to_float(unsigned short h) { return __half2float(__ushort_as_half(h)); }
// Byte select (CUDA __byte_perm without the sign-replicate mode): byte i of the result is
// byte (s >> 4i) & 7 of the 8-byte value {y:x}.
__device__ __forceinline__ unsigned qg_byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFFu) << (8 * i);
  return r;
}
// 8-entry byte lookup with zero for the other half: byte i of the result is 0 where bit 3
// of nibble i of s is set, else byte (s >> 4i) & 7 of the 8-byte table {t1:t0}; every table
// byte must be < 0x80 (the CUDA form relies on it). Here: the byte select, then a mask with
// byte i = 0xFF where bit 3 of nibble i is clear (branch-free: bits 3, 7, 11, 15 spread to
// bits 0, 8, 16, 24, times 0xFF).
__device__ __forceinline__ unsigned qg_lut8z(unsigned t0, unsigned t1, unsigned s) {
  const unsigned z = (~s >> 3) & 0x1111u;  // 1 where the nibble's bit 3 is clear
  const unsigned spread = (z & 1u) | ((z & 0x10u) << 4) | ((z & 0x100u) << 8) | ((z & 0x1000u) << 12);
  return qg_byte_perm(t0, t1, s & 0x7777u) & (spread * 0xFFu);
}
// Funnel shift right, clamped: the low 32 bits of {hi:lo} >> min(s, 32).
__device__ __forceinline__ unsigned qg_funnel_rc(unsigned lo, unsigned hi, unsigned s) {
  return static_cast<unsigned>(((static_cast<unsigned long long>(hi) << 32) | lo) >> (s < 32 ? s : 32));
}
// 16-byte copy global -> shared, "asynchronous" (here: a plain copy, complete at once), and
// its group commit / wait (no-ops here). Both 16-byte aligned.
__device__ __forceinline__ void qg_async_copy16(void* smem, const void* gmem) {
  *static_cast<uint4*>(smem) = *static_cast<const uint4*>(gmem);
}
__device__ __forceinline__ void qg_async_commit() {}
template <int N>
__device__ __forceinline__ void qg_async_wait() {}
// A shared-memory location in the form the copy takes (here: the pointer; offsets add to it),
// taken once, so a loop of copies does not convert each destination again;
// qg_async_copy16_at copies to it as qg_async_copy16.
typedef unsigned char* qg_sref;
__device__ __forceinline__ qg_sref qg_sref_of(void* smem) { return static_cast<unsigned char*>(smem); }
__device__ __forceinline__ void qg_async_copy16_at(qg_sref smem, const void* gmem) { qg_async_copy16(smem, gmem); }
#endif
#else
#if defined(__CUDACC__) || defined(__HIPCC__)
// ---- device intrinsics, each with its IEEE meaning stated (no fast math anywhere) ----

// sum of the four signed byte products of a and b, plus c (exact integer arithmetic).
__device__ __forceinline__ int qg_dp4a(int a, int b, int c) {
  return __dp4a(a, b, c);
}
// The same with the bytes of a unsigned (0..255) and those of b signed (dp4a.u32.s32).
__device__ __forceinline__ int qg_dp4a_us(unsigned a, int b, int c) {
  int d;
  asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
// double -> float rounded toward zero (the first step of a round-to-odd conversion).
__device__ __forceinline__ float qg_double_to_float_rz(double v) { return __double2float_rz(v); }
// float -> f16 / bf16 bits, round to nearest even (IEEE).
__device__ __forceinline__ unsigned short qg_float_to_f16_bits(float v) {
  return __half_as_ushort(__float2half_rn(v));
}
__device__ __forceinline__ unsigned short qg_float_to_bf16_bits(float v) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}
// Width of the hardware SIMD group (32 on NVIDIA, 32 or 64 on AMD). Never assumed by
// correctness-bearing logic here.
__device__ __forceinline__ int qg_warp_size() { return warpSize; }
// IEEE binary16 bits -> float (exact).
__device__ __forceinline__ float qg_f16_bits_to_float(unsigned short h) { return __half2float(__ushort_as_half(h)); }
// Byte select: byte i of the result is byte (s >> 4i) & 7 of the 8-byte value {y:x}
// (selector nibbles 0..7 only: the sign-replicate mode is not used).
__device__ __forceinline__ unsigned qg_byte_perm(unsigned x, unsigned y, unsigned s) { return __byte_perm(x, y, s); }
// 8-entry byte lookup with zero for the other half: byte i of the result is 0 where bit 3
// of nibble i of s is set, else byte (s >> 4i) & 7 of the 8-byte table {t1:t0}; every table
// byte must be < 0x80 (here PTX prmt's sign-replicate mode gives the 0: the msb is clear;
// __byte_perm cannot be used, it masks each selector nibble to 3 bits).
__device__ __forceinline__ unsigned qg_lut8z(unsigned t0, unsigned t1, unsigned s) {
  unsigned r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t0), "r"(t1), "r"(s));
  return r;
}
// Funnel shift right, clamped: the low 32 bits of {hi:lo} >> min(s, 32).
__device__ __forceinline__ unsigned qg_funnel_rc(unsigned lo, unsigned hi, unsigned s) { return __funnelshift_rc(lo, hi, s); }
// 16-byte copy global -> shared without a register round trip (sm_80+: cp.async.cg, a plain
// copy below), both 16-byte aligned. The copies a thread issued since its last commit form
// a group; qg_async_wait<N>() returns when at most N of its groups are still pending (the
// data is then in shared memory for this thread; a barrier makes it visible to the block).
// A shared-memory location in the form the copy takes (sm_80+: the 32-bit shared-window
// address; offsets add to it), taken once, so a loop of copies does not convert each
// destination again; qg_async_copy16_at copies to it as qg_async_copy16.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
typedef unsigned qg_sref;
__device__ __forceinline__ qg_sref qg_sref_of(void* smem) { return static_cast<unsigned>(__cvta_generic_to_shared(smem)); }
// The L2::128B hint lets L2 fetch the whole 128-byte line a piece lies in (the neighbouring
// pieces are the same warp's next copies): H200, 3 runs each, 32768x16384 mat-vec at M = 1:
// q8_0 89-90 -> 91-92 % of the read stream, mxfp4 72 -> 74, q4_0 / q6_K / q5_K +1; L2::256B
// was slower (q4_0 84 -> 81-83 %); the GEMM's figures did not move (docs/PERFORMANCE.md).
__device__ __forceinline__ void qg_async_copy16_at(qg_sref smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem) : "memory");
}
#else
typedef unsigned char* qg_sref;
__device__ __forceinline__ qg_sref qg_sref_of(void* smem) { return static_cast<unsigned char*>(smem); }
__device__ __forceinline__ void qg_async_copy16_at(qg_sref smem, const void* gmem) {
  *reinterpret_cast<uint4*>(smem) = *static_cast<const uint4*>(gmem);
}
#endif
__device__ __forceinline__ void qg_async_copy16(void* smem, const void* gmem) {
  qg_async_copy16_at(qg_sref_of(smem), gmem);
}
__device__ __forceinline__ void qg_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void qg_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
#endif
#endif

// ---- int8 tensor-core tile products (the prefill GEMM), over a group of 32 lanes ----
// qg_mma_s8_16x8x32: D[16][8] = A[16][32] * B[32][8] + C, int8 x int8 -> int32, exact
// (|sum| <= 32 * 128 * 128 < 2^31). The operands are spread over 32 CONSECUTIVE lanes
// (a "tile group") as PTX's mma.m16n8k32 .row.col .s8 fragments lay them out: with
// g = lane / 4, t = lane % 4 (lane = position inside the group),
//   a[0] = A[g][4t..4t+3], a[1] = A[g+8][4t..], a[2] = A[g][16+4t..], a[3] = A[g+8][16+4t..]
//   b[0] = B[4t..4t+3][g], b[1] = B[16+4t..][g]      (4 int8 per int, lowest k first)
//   d[0], d[1] = D[g][2t], D[g][2t+1];  d[2], d[3] = D[g+8][2t], D[g+8][2t+1]
// qg_mma_s8_16x8x16: the k = 16 form, a[0], a[1] and b[0] as above.
// The tile group is a property of the fragment layout, not of the hardware: on NVIDIA it
// is one warp; on a 64-wide AMD wave it is either half of the wave. All 32 lanes of the
// group must call it together. sm_80+: the PTX instruction; elsewhere (HIP, older CUDA)
// the same products from the same fragments by 32-wide shuffles and exact 4-byte dots.
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
__device__ __forceinline__ int qg_shfl32(int v, int src_lane) {
#if defined(QGATE_HIP) || defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)
  return __shfl(v, src_lane, 32);
#else
  return __shfl_sync(0xFFFFFFFFu, v, src_lane, 32);
#endif
}
// The lane's position inside its 32-lane tile group (blocks are 1-D and the groups are
// 32-aligned, so hardware waves of 32 or 64 hold whole groups).
__device__ __forceinline__ int qg_group_lane() { return int(threadIdx.x) & 31; }

// Portable forms (exact integer arithmetic: the same D as the instruction).
__device__ __forceinline__ void qg_mma_s8_16x8x32_portable(int (&d)[4], const int (&a)[4], const int (&b)[2],
                                                           const int (&c)[4]) {
  const int lane = qg_group_lane(), g = lane >> 2, t = lane & 3;
  int s[4] = {c[0], c[1], c[2], c[3]};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int src_a = 4 * g + q;  // holds A[g][4q..] (a0), A[g+8][4q..] (a1), and +16 (a2, a3)
    const int a0 = qg_shfl32(a[0], src_a), a1 = qg_shfl32(a[1], src_a);
    const int a2 = qg_shfl32(a[2], src_a), a3 = qg_shfl32(a[3], src_a);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int src_b = 4 * (2 * t + j) + q;  // holds B[4q..][2t+j] (b0) and B[16+4q..][2t+j] (b1)
      const int b0 = qg_shfl32(b[0], src_b), b1 = qg_shfl32(b[1], src_b);
      s[j] = qg_dp4a(a2, b1, qg_dp4a(a0, b0, s[j]));
      s[2 + j] = qg_dp4a(a3, b1, qg_dp4a(a1, b0, s[2 + j]));
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) d[i] = s[i];
}
__device__ __forceinline__ void qg_mma_s8_16x8x16_portable(int (&d)[4], const int (&a)[2], int b0_in,
                                                           const int (&c)[4]) {
  const int lane = qg_group_lane(), g = lane >> 2, t = lane & 3;
  int s[4] = {c[0], c[1], c[2], c[3]};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int src_a = 4 * g + q;
    const int a0 = qg_shfl32(a[0], src_a), a1 = qg_shfl32(a[1], src_a);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int b0 = qg_shfl32(b0_in, 4 * (2 * t + j) + q);
      s[j] = qg_dp4a(a0, b0, s[j]);
      s[2 + j] = qg_dp4a(a1, b0, s[2 + j]);
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) d[i] = s[i];
}

// f32 fused multiply-add a * b + c with ONE rounding (IEEE fma), whatever the compiler's
// contraction settings: the GEMM relies on the single rounding for exactness.
__device__ __forceinline__ float qg_fmaf(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

__device__ __forceinline__ void qg_mma_s8_16x8x32(int (&d)[4], const int (&a)[4], const int (&b)[2],
                                                  const int (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(QGATE_MMA_PORTABLE)
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]),
        "r"(c[3]));
#else
  qg_mma_s8_16x8x32_portable(d, a, b, c);
#endif
}
__device__ __forceinline__ void qg_mma_s8_16x8x16(int (&d)[4], const int (&a)[2], int b0, const int (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(QGATE_MMA_PORTABLE)
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b0), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
#else
  qg_mma_s8_16x8x16_portable(d, a, b0, c);
#endif
}
#endif
