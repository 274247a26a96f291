// Unit tests of the census rules on compiler output captured from this project's own code
// objects (llvm-objdump-19 / llvm-readelf-19 on kernels/hip builds; ptxas 13.0 -v). Each rule
// is shown firing on the pattern it exists for and staying quiet on its twin.
#include <gtest/gtest.h>

#include "tools/census/census.hpp"

namespace qgate::census {
namespace {

// gfx1201 (clang-19), kernels/hip/census_mutants.cu: two iterations of the predicated
// staging loop. Each load is followed by a full s_wait_loadcnt 0x0 before the next.
constexpr const char* kPredicatedGfx1201 = R"(
0000000000001a00 <_ZN5qgate14census_mutants16stage_predicatedEPKfiPf>:
	s_cbranch_execz 12                                         // 000000001A40: BFA5000C
	v_add_co_u32 v4, vcc_lo, s4, v4                            // 000000001A44: D7006A04 00020804
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, vcc_lo             // 000000001A4C: 400A0A05
	global_load_b32 v4, v[4:5], off                            // 000000001A50: EE06807C 04000000 00000004
	s_wait_loadcnt 0x0                                         // 000000001A5C: BFC00000
	ds_store_b32 v3, v4                                        // 000000001A60: D8340000 00000403
	s_cbranch_execz 17                                         // 000000001A68: BFA50011
	v_add_co_u32 v4, s8, s2, v0                                // 000000001A70: D7000804 00000002
	v_add_co_ci_u32_e64 v5, null, s7, 0, s8                    // 000000001A78: D5207C05 00210007
	v_add_co_u32 v4, vcc_lo, s4, v4                            // 000000001A80: D7006A04 00020804
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, vcc_lo             // 000000001A88: 400A0A05
	global_load_b32 v4, v[4:5], off offset:1024                // 000000001A8C: EE06807C 04000000 00040004
	s_wait_loadcnt 0x0                                         // 000000001A98: BFC00000
	ds_store_b32 v3, v4 offset:1024                            // 000000001A9C: D8340400 00000403
	s_and_saveexec_b32 s3, vcc_lo                              // 000000001AA4: BE83206A
	s_endpgm                                                   // 000000001AA8: BFB00000
)";

// The clamped twin on gfx1201: the loads issue back to back, the waits count down after them.
constexpr const char* kClampedGfx1201 = R"(
0000000000002000 <_ZN5qgate14census_mutants13stage_clampedEPKfiPf>:
	v_add_co_u32 v1, vcc_lo, s4, v1                            // 000000002040: D7006A01 00020204
	v_add_co_ci_u32_e32 v2, vcc_lo, s5, v2, vcc_lo             // 000000002048: 40040405
	v_add_co_u32 v3, vcc_lo, s4, v3                            // 00000000204C: D7006A03 00020604
	v_add_co_ci_u32_e32 v4, vcc_lo, s5, v4, vcc_lo             // 000000002054: 40080805
	global_load_b32 v17, v[1:2], off                           // 000000002058: EE06807C 11000000 00000001
	global_load_b32 v4, v[3:4], off                            // 000000002064: EE06807C 04000000 00000003
	s_wait_loadcnt 0x1                                         // 000000002070: BFC00001
	ds_store_2addr_stride64_b32 v11, v17, v4 offset1:4         // 000000002074: D8DC0400 00000411
	s_wait_loadcnt 0x0                                         // 00000000207C: BFC00000
	s_endpgm                                                   // 000000002080: BFB00000
)";

TEST(IsaCensus, PredicatedStagingIsFlaggedClampedTwinIsNot) {
  const auto p = parse_disassembly(kPredicatedGfx1201);
  const IsaCounts& a = p.at("_ZN5qgate14census_mutants16stage_predicatedEPKfiPf");
  EXPECT_EQ(a.loads, 2);
  EXPECT_EQ(a.full_waits, 1);
  EXPECT_EQ(a.exec_branches, 2);
  EXPECT_EQ(a.saveexec, 1);
  const auto c = parse_disassembly(kClampedGfx1201);
  const IsaCounts& b = c.at("_ZN5qgate14census_mutants13stage_clampedEPKfiPf");
  EXPECT_EQ(b.loads, 2);
  EXPECT_EQ(b.full_waits, 0);  // the final s_wait_loadcnt 0x0 follows the last load
  EXPECT_EQ(b.exec_branches, 0);
}

TEST(IsaCensus, Addr64CountsCarryPairsThatFeedALoad) {
  // Predicated: the first pair (carry via s8) is rebuilt by the second (vcc_lo) before the
  // load: one pair per load. Clamped: two pairs, two loads.
  EXPECT_EQ(parse_disassembly(kPredicatedGfx1201).begin()->second.addr64, 2);
  EXPECT_EQ(parse_disassembly(kClampedGfx1201).begin()->second.addr64, 2);
  // A pair whose carry does not link (different carry registers), a pair rewritten before
  // the load, and a load through a scalar base (saddr + 32-bit offset) count nothing.
  const auto n = parse_disassembly(R"(
0000000000000100 <k>:
	v_add_co_u32 v4, vcc_lo, s4, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, s9
	global_load_b32 v6, v[4:5], off
	v_add_co_u32 v8, vcc_lo, s4, v8
	v_add_co_ci_u32_e32 v9, vcc_lo, s5, v9, vcc_lo
	v_mov_b32_e32 v9, 0
	global_load_b32 v6, v[8:9], off
	global_load_b32 v6, v1, s[2:3]
)");
  EXPECT_EQ(n.at("k").addr64, 0);
  EXPECT_EQ(n.at("k").loads, 3);
  // gfx90a spelling (v_addc_co_u32 with vcc) counts; a store through the pair does not.
  const auto g = parse_disassembly(R"(
0000000000000100 <k90>:
	v_add_co_u32_e32 v16, vcc, s38, v16                        // 000000003A34: 32202026
	v_addc_co_u32_e32 v17, vcc, v17, v41, vcc                  // 000000003A70: 38225311
	global_store_dword v[16:17], v1, off
	global_load_ushort v31, v[16:17], off                      // 000000003A78: DC488000 1F7F0010
)");
  EXPECT_EQ(g.at("k90").addr64, 1);
}

TEST(IsaCensus, FullWaitSpellingsPerGeneration) {
  // gfx9 / gfx10 / gfx11: s_waitcnt with vmcnt(0); partial counts are not full waits.
  EXPECT_TRUE(is_full_load_wait("s_waitcnt", "vmcnt(0)"));
  EXPECT_TRUE(is_full_load_wait("s_waitcnt", "vmcnt(0) lgkmcnt(0)"));
  EXPECT_TRUE(is_full_load_wait("s_waitcnt", "0"));
  EXPECT_FALSE(is_full_load_wait("s_waitcnt", "vmcnt(1)"));
  EXPECT_FALSE(is_full_load_wait("s_waitcnt", "lgkmcnt(0)"));
  EXPECT_TRUE(is_full_load_wait("s_waitcnt_vmcnt", "null, 0x0"));
  EXPECT_FALSE(is_full_load_wait("s_waitcnt_vmcnt", "null, 0x2"));
  // gfx12: separate load counter; the combined form keeps the load count in bits 13:8.
  EXPECT_TRUE(is_full_load_wait("s_wait_loadcnt", "0x0"));
  EXPECT_FALSE(is_full_load_wait("s_wait_loadcnt", "0x3"));
  EXPECT_TRUE(is_full_load_wait("s_wait_loadcnt_dscnt", "0x5"));     // loads 0, ds 5
  EXPECT_FALSE(is_full_load_wait("s_wait_loadcnt_dscnt", "0x100"));  // loads 1
  EXPECT_FALSE(is_full_load_wait("s_wait_kmcnt", "0x0"));
  EXPECT_TRUE(is_vmem_load("global_load_dwordx4"));
  EXPECT_TRUE(is_vmem_load("buffer_load_dword"));
  EXPECT_FALSE(is_vmem_load("s_load_b64"));
  EXPECT_FALSE(is_vmem_load("ds_load_b32"));
  // gfx90a (hipcc) as captured: vmcnt(1) between the loads is fine, vmcnt(0) is not.
  const auto f = parse_disassembly(R"(
0000000000003400 <m>:
	global_load_dwordx4 v[30:33], v[16:17], off                // 0000000035C0: DC5C8000 1E7F0010
	global_load_ushort v13, v[16:17], off offset:16            // 0000000035C8: DC488010 0D7F0010
	s_waitcnt vmcnt(1)                                         // 0000000035D0: BF8C0F71
	global_load_ushort v14, v[16:17], off offset:18
	s_waitcnt vmcnt(0)                                         // 000000003748: BF8C0F70
	global_load_ushort v31, v[16:17], off                      // 000000003A78: DC488000 1F7F0010
	s_waitcnt vmcnt(0)                                         // 000000003A80: BF8C0F70
0000000000003b00 <next>:
	global_load_ushort v31, v[16:17], off
)");
  EXPECT_EQ(f.at("m").full_waits, 1);
  EXPECT_EQ(f.at("m").loads, 4);
  EXPECT_EQ(f.at("next").full_waits, 0);  // a wait at the end of one function does not carry over
}

TEST(IsaCensus, ExecBranches) {
  const auto e = parse_disassembly(R"(
0000000000000000 <e>:
	s_and_saveexec_b64 s[26:27], vcc
	s_cbranch_execz 415
	s_andn2_saveexec_b64 s[0:1], s[0:1]
	s_cbranch_execnz 3
	s_cbranch_scc1 4
	s_and_not1_saveexec_b32 s0, s0
)");
  EXPECT_EQ(e.at("e").exec_branches, 2);
  EXPECT_EQ(e.at("e").saveexec, 3);
}

constexpr const char* kNotes = R"(Displaying notes found in: .note
  Owner                Data size 	Description
  AMDGPU               0x00000a66	NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .access:         read_only
        .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .max_flat_workgroup_size: 128
    .name:           _ZN5qgate3cuk13matvec_kernelINS0_8Fmt_q4_0ELi0ELi1EEEvPKhS4_PfllilNS0_8IqTablesE
    .private_segment_fixed_size: 0
    .sgpr_count:     46
    .sgpr_spill_count: 0
    .symbol:         _ZN5qgate3cuk13matvec_kernelINS0_8Fmt_q4_0ELi0ELi1EEEvPKhS4_PfllilNS0_8IqTablesE.kd
    .uses_dynamic_stack: false
    .vgpr_count:     47
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     4
    .group_segment_fixed_size: 0
    .max_flat_workgroup_size: 256
    .name:           _Z1kv
    .private_segment_fixed_size: 16
    .sgpr_count:     20
    .sgpr_spill_count: 2
    .vgpr_count:     300
    .vgpr_spill_count: 7
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
)";

TEST(Notes, ReadsEveryKernelEntry) {
  std::vector<AmdKernel> ks;
  ASSERT_EQ(parse_amdgpu_notes(kNotes, ks), "");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].vgpr, 47);
  EXPECT_EQ(ks[0].sgpr, 46);
  EXPECT_EQ(ks[0].lds, 4096);
  EXPECT_EQ(ks[0].max_wg, 128);
  EXPECT_EQ(ks[0].wave, 64);
  EXPECT_EQ(ks[1].symbol, "_Z1kv");
  EXPECT_EQ(ks[1].agpr, 4);
  EXPECT_EQ(ks[1].scratch, 16);
  EXPECT_EQ(ks[1].vgpr_spill, 7);
  EXPECT_EQ(ks[1].sgpr_spill, 2);
  std::vector<AmdKernel> none;
  EXPECT_NE(parse_amdgpu_notes("Displaying notes found in: .note\n", none), "");
  std::vector<AmdKernel> bad;
  EXPECT_NE(parse_amdgpu_notes("amdhsa.kernels:\n  - .name: k\n    .vgpr_count: lots\n    .wavefront_size: 32\n", bad), "");
}

TEST(Occupancy, MatchesTheCompilersOwnFigure) {
  // clang-19 -Rpass-analysis=kernel-resource-usage on the q4_0 mat-vec: gfx1201 124 VGPRs,
  // 36 SGPRs, LDS 4096 -> "Occupancy [waves/SIMD]: 10"; gfx942 128 VGPRs, 64 SGPRs -> 4.
  AmdKernel k;
  k.vgpr = 124, k.sgpr = 36, k.lds = 4096, k.wave = 32, k.max_wg = 128;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx1201"), k).waves, 10);
  EXPECT_EQ(amd_occupancy(*target_limits("gfx1201"), k).limiter, "vgpr");
  k.vgpr = 128, k.sgpr = 64, k.wave = 64;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx942"), k).waves, 4);
  // Breaks of the 24-VGPR granule on RDNA3/4 (1536 per lane): 96 -> 16, 97 -> 12.
  k = AmdKernel{};
  k.vgpr = 96, k.sgpr = 10, k.wave = 32;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx1151"), k).waves, 16);
  k.vgpr = 97;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx1151"), k).waves, 12);
  // gfx1030: granule 16 of 1024: 65 VGPRs -> 80 -> 12.
  k.vgpr = 65;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx1030"), k).waves, 12);
  // gfx90a: AGPRs join the unified file after the VGPRs rounded to 4; SGPRs limit on gfx9.
  k = AmdKernel{};
  k.vgpr = 62, k.agpr = 64, k.sgpr = 20, k.wave = 64;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).waves, 4);  // 64 + 64 = 128 -> 512/128
  k.vgpr = 8, k.agpr = 0, k.sgpr = 102;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).waves, 7);  // 800/8 = 100 -> 96 < 102; 800/7 -> 112
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).limiter, "sgpr");
  // LDS: 48 KiB per 256-thread work-group on CDNA: one group per CU, 4 waves over 4 SIMDs.
  k.sgpr = 20, k.lds = 48 * 1024, k.max_wg = 256;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).waves, 1);
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).limiter, "lds");
  // 38 KiB per 128-thread group (2 waves of 64): one group per CU, one wave on the busiest SIMD.
  k.lds = 38912, k.max_wg = 128;
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).waves, 1);
  k.lds = 70000;  // does not fit a CU at all
  EXPECT_EQ(amd_occupancy(*target_limits("gfx90a"), k).waves, 0);
  EXPECT_EQ(target_limits("gfx803"), nullptr);
  // sm_90: 39 registers -> 1248 -> 1280 per warp -> 51 warps; 32 -> 64.
  EXPECT_EQ(sm90_warps_by_regs(39), 51);
  EXPECT_EQ(sm90_warps_by_regs(32), 64);
  EXPECT_EQ(sm90_warps_by_regs(255), 8);
}

TEST(Ptxas, ReadsEntriesAndTheirFrames) {
  std::vector<CudaKernel> ks;
  ASSERT_EQ(parse_ptxas(R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN5qgate3cuk13matvec_kernelINS0_8Fmt_q8_0ELi0ELi0EEEvPKhS4_PfllilNS0_8IqTablesE' for 'sm_90'
ptxas info    : Function properties for _ZN5qgate3cuk13matvec_kernelINS0_8Fmt_q8_0ELi0ELi0EEEvPKhS4_PfllilNS0_8IqTablesE
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 39 registers, used 1 barriers, 4096 bytes smem
ptxas info    : Compile time = 103.852 ms
ptxas info    : Function properties for _Z6helperv
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z5spillv' for 'sm_90'
ptxas info    : Function properties for _Z5spillv
    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 380 bytes cmem[0]
)", ks), "");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].regs, 39);
  EXPECT_EQ(ks[0].smem, 4096);
  EXPECT_EQ(ks[0].stack, 0);
  EXPECT_EQ(ks[1].symbol, "_Z5spillv");
  EXPECT_EQ(ks[1].regs, 255);
  EXPECT_EQ(ks[1].smem, 0);
  EXPECT_EQ(ks[1].stack, 24);
  EXPECT_EQ(ks[1].spill_stores, 16);
  EXPECT_EQ(ks[1].spill_loads, 12);
  std::vector<CudaKernel> none;
  EXPECT_NE(parse_ptxas("ptxas info    : 0 bytes gmem\n", none), "");
}

TEST(Names, ShortNames) {
  EXPECT_EQ(short_name("_ZN5qgate3cuk14dequant_kernelINS0_8Fmt_q4_0ELi0EEEvPKhlPvNS0_8IqTablesE"),
            "dequant_kernel<Fmt_q4_0,0>");
  EXPECT_EQ(short_name("_ZN5qgate14census_mutants16stage_predicatedEPKfiPf"), "stage_predicated");
  EXPECT_EQ(short_name("not_mangled"), "not_mangled");
}

Row row(std::string target, std::string kernel, std::map<std::string, int> m) {
  Row r;
  r.target = std::move(target);
  r.source = "src";
  r.kernel = std::move(kernel);
  r.m = std::move(m);
  return r;
}

TEST(Budgets, ParseAndGate) {
  std::vector<BudgetLine> b;
  ASSERT_EQ(parse_budgets("# comment\n"
                          "stage_*  gfx*  full_waits<=0 vgpr<=64   # trailing\n"
                          "stage_*  gfx1201  waves>=12\n",
                          "x.budget", b),
            "");
  ASSERT_EQ(b.size(), 2u);
  // Within budget.
  Row ok = row("gfx1201", "stage_clamped", {{"full_waits", 0}, {"vgpr", 20}, {"waves", 16}});
  EXPECT_EQ(check_row(ok, b), 0);
  // Each limit can fail: the ceiling, the floor, and both lines apply together.
  Row bad = row("gfx1201", "stage_predicated", {{"full_waits", 7}, {"vgpr", 65}, {"waves", 10}});
  EXPECT_EQ(check_row(bad, b), 3);
  EXPECT_NE(bad.failures[0].find("full_waits = 7, budget full_waits<=0 (x.budget:2)"), std::string::npos) << bad.failures[0];
  // A spill or scratch fails unless the budget declares it; declared, it is listed as a waiver.
  Row spill = row("gfx90a", "stage_clamped", {{"vgpr_spill", 1}, {"scratch", 0}});
  EXPECT_EQ(check_row(spill, b), 1);
  std::vector<BudgetLine> with_spill;
  ASSERT_EQ(parse_budgets("stage_* sm_90 spill<=32\n", "z.budget", with_spill), "");
  Row waived = row("sm_90", "stage_clamped", {{"vgpr_spill", 32}});
  EXPECT_EQ(check_row(waived, with_spill), 0);
  ASSERT_EQ(waived.waivers.size(), 1u);
  EXPECT_NE(waived.waivers[0].find("spill = 32 declared in z.budget:1"), std::string::npos) << waived.waivers[0];
  Row spill_over = row("sm_90", "stage_clamped", {{"vgpr_spill", 48}});
  EXPECT_EQ(check_row(spill_over, with_spill), 1);
  Row scratch = row("gfx90a", "stage_clamped", {{"scratch", 16}});
  EXPECT_EQ(check_row(scratch, b), 1);
  std::vector<BudgetLine> with_scratch;
  ASSERT_EQ(parse_budgets("stage_* gfx90a scratch<=16\n", "y.budget", with_scratch), "");
  Row declared = row("gfx90a", "stage_clamped", {{"scratch", 16}});
  EXPECT_EQ(check_row(declared, with_scratch), 0);
  Row over = row("gfx90a", "stage_clamped", {{"scratch", 32}});
  EXPECT_EQ(check_row(over, with_scratch), 1);
  // No line matches: a failure that says what to add.
  Row none = row("sm_90", "stage_clamped", {{"vgpr", 30}, {"waves", 64}});
  ASSERT_EQ(check_row(none, b), 1);
  EXPECT_NE(none.failures[0].find("no budget; add a line to kernels/*/src.budget, e.g.: stage_clamped sm_90 waves>=64 vgpr<=32"),
            std::string::npos)
      << none.failures[0];
}

TEST(Budgets, MalformedLinesAreErrors) {
  std::vector<BudgetLine> b;
  EXPECT_NE(parse_budgets("k gfx*\n", "f", b), "");
  EXPECT_NE(parse_budgets("k gfx* vgprs<=3\n", "f", b).find("unknown key 'vgprs'"), std::string::npos);
  EXPECT_NE(parse_budgets("k gfx* vgpr>=3\n", "f", b), "");
  EXPECT_NE(parse_budgets("k gfx* waves<=3\n", "f", b), "");
  EXPECT_NE(parse_budgets("k gfx* vgpr<=x\n", "f", b), "");
  EXPECT_NE(parse_budgets("k gfx* vgpr=3\n", "f", b), "");
}

}  // namespace
}  // namespace qgate::census
