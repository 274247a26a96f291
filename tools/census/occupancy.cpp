// Occupancy implied by a kernel's resources: waves per SIMD (AMD), warps per SM (sm_90).
// The limits, per target, and where they come from (docs/HIP.md has the table):
//  - waves per SIMD, VGPR file and allocation granule: LLVM AMDGPU's own occupancy model,
//    llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (LLVM 19): getMaxWavesPerEU
//    (gfx90a/gfx94x 8; gfx10.3+ 16), getTotalNumVGPRs (gfx90a/gfx94x 512 unified VGPR+AGPR;
//    gfx10+ wave32 1024; FeatureGFX11FullVGPRs targets gfx1100/gfx1151/gfx12 wave32 1536),
//    getVGPRAllocGranule (gfx90a/gfx94x 8; gfx10.3 wave32 16; FullVGPRs wave32 24),
//    getTotalNumSGPRs 800 and getSGPRAllocGranule 16 on gfx9 (SGPRs do not limit gfx10+).
//    Checked against clang-19's own figure (-Rpass-analysis=kernel-resource-usage,
//    "Occupancy [waves/SIMD]") for the q4_0 mat-vec: gfx1201 124 VGPRs -> 10, gfx942 128 -> 4.
//  - LDS: 64 KiB per CU of 4 SIMDs on CDNA (gfx90a, gfx942: AMD CDNA2/CDNA3 ISA guides);
//    128 KiB per WGP of 4 SIMD32s on RDNA2/3/4 (AMD RDNA whitepaper, RDNA3/RDNA4 ISA guides),
//    work-groups in WGP mode (the compiler's default).
//  - sm_90: 65536 32-bit registers per SM, at most 64 resident warps, registers allocated
//    per warp in units of 256 (CUDA C++ Programming Guide, "Compute Capabilities" table for
//    9.0; the CUDA occupancy calculator's allocation granularity).
#include <algorithm>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

constexpr TargetLimits kTargets[] = {
    // target   wave max  vgprs gran  sgprs gran  lds     simds
    {"gfx90a", 64, 8, 512, 8, 800, 16, 65536, 4},
    {"gfx942", 64, 8, 512, 8, 800, 16, 65536, 4},
    {"gfx1030", 32, 16, 1024, 16, 0, 0, 131072, 4},
    {"gfx1100", 32, 16, 1536, 24, 0, 0, 131072, 4},
    {"gfx1151", 32, 16, 1536, 24, 0, 0, 131072, 4},
    {"gfx1201", 32, 16, 1536, 24, 0, 0, 131072, 4},
};

int align_up(int x, int g) { return (x + g - 1) / g * g; }

}  // namespace

const TargetLimits* target_limits(std::string_view target) {
  for (const TargetLimits& t : kTargets)
    if (t.target == target) return &t;
  return nullptr;
}

Occupancy amd_occupancy(const TargetLimits& t, const AmdKernel& k) {
  Occupancy o{t.max_waves, "max"};
  auto limit = [&](int w, std::string_view why) {
    if (w < o.waves) o = {w, why};
  };
  // VGPRs: CDNA allocates AGPRs after the VGPRs rounded to 4 (the accumulation offset), one
  // unified file; wave64 on RDNA would halve the file, which the table's wave32 entries assume.
  int v = std::max(k.vgpr, 1);
  if (k.agpr > 0) v = align_up(v, 4) + k.agpr;
  int file = t.vgpr_file, granule = t.vgpr_granule;
  if (k.wave != t.wave && t.wave == 32) file /= 2, granule /= 2;  // wave64 on RDNA: half the lanes' worth
  limit(file / align_up(v, granule), "vgpr");
  if (t.sgpr_file > 0) {
    int w = t.max_waves;
    while (w > 1 && (t.sgpr_file / w) / t.sgpr_granule * t.sgpr_granule < k.sgpr) --w;
    limit(w, "sgpr");
  }
  if (k.lds > 0) {
    const int wg_threads = k.max_wg > 0 ? k.max_wg : 1024;
    const int waves_per_wg = (wg_threads + k.wave - 1) / k.wave;
    const int wgs = t.lds_bytes / k.lds;
    // The busiest SIMD: a group of fewer waves than SIMDs still puts one wave on some SIMD.
    limit((wgs * waves_per_wg + t.simds - 1) / t.simds, "lds");
  }
  if (o.waves < 0) o.waves = 0;
  return o;
}

int sm90_warps_by_regs(int regs) {
  if (regs <= 0) return 64;
  const int per_warp = align_up(regs * 32, 256);
  return std::min(64, 65536 / per_warp);
}

}  // namespace qgate::census
