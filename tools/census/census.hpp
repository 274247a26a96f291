// The code-object census (docs/HIP.md): what each compiled kernel costs, read from
// the compilers' own outputs, and the per-kernel budgets it is gated against. Pure parsing
// and arithmetic on text: the qgate census command (tools/qgate/cmd_census.cpp) runs the
// tools (llvm-readelf, llvm-objdump, nvcc/ptxas) and hands their output here, so every rule
// is unit-tested on captured snippets (census_test.cpp).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace qgate::census {

// ---- AMD: resources from the code object's AMDGPU metadata (llvm-readelf --notes) ----
struct AmdKernel {
  std::string symbol;  // mangled kernel name
  int vgpr = 0, agpr = 0, sgpr = 0, vgpr_spill = 0, sgpr_spill = 0;
  int scratch = 0;     // private segment bytes per work-item
  int lds = 0;         // group segment bytes per work-group
  int wave = 0;        // wavefront size
  int max_wg = 0;      // .max_flat_workgroup_size (the kernel's launch bound)
  bool dynamic_stack = false;
};
// "" on success, else what is malformed. An input without kernels is an error.
std::string parse_amdgpu_notes(std::string_view readelf_notes, std::vector<AmdKernel>& out);

// ---- AMD: the ISA census from the disassembly (llvm-objdump -d), per function symbol ----
struct IsaCounts {
  int loads = 0;          // vector-memory loads: global_load*, buffer_load*, flat_load*
  int full_waits = 0;     // load-to-next-load gaps (in address order) holding a wait for ALL outstanding loads
  int addr64 = 0;         // v_add_co/v_addc carry pairs whose v[lo:lo+1] is the 64-bit address of a later load
  int exec_branches = 0;  // s_cbranch_execz / s_cbranch_execnz
  int saveexec = 0;       // s_*_saveexec_* (entry/else of a divergent region)
};
std::map<std::string, IsaCounts> parse_disassembly(std::string_view objdump);
// One instruction's effect on the rules, exposed for the tests.
bool is_vmem_load(std::string_view mnemonic);
bool is_full_load_wait(std::string_view mnemonic, std::string_view operands);

// ---- AMD: per-target limits and the implied occupancy ----
struct TargetLimits {
  std::string_view target;
  int wave;               // default wavefront size of the compiler for HIP
  int max_waves;          // waves per SIMD the hardware holds
  int vgpr_file;          // VGPRs per lane per SIMD at this wave size (CDNA: unified VGPR+AGPR)
  int vgpr_granule;       // allocation granule
  int sgpr_file;          // SGPRs per SIMD when they limit occupancy (gfx9); 0 = they do not
  int sgpr_granule;
  int lds_bytes;          // LDS per unit the work-groups share (CU on gfx9, WGP on gfx10+)
  int simds;              // SIMDs per that unit
};
const TargetLimits* target_limits(std::string_view target);  // nullptr: unknown target
struct Occupancy {
  int waves = 0;             // per SIMD
  std::string_view limiter;  // "vgpr", "sgpr", "lds" or "max"
};
Occupancy amd_occupancy(const TargetLimits& t, const AmdKernel& k);

// ---- CUDA: the ptxas resource report (nvcc -Xptxas -v) ----
struct CudaKernel {
  std::string symbol;
  int regs = 0, stack = 0, spill_stores = 0, spill_loads = 0, smem = 0;
};
std::string parse_ptxas(std::string_view report, std::vector<CudaKernel>& out);
// Resident warps per SM on sm_90 implied by registers alone.
int sm90_warps_by_regs(int regs);

// ---- text ----
// The lines of a tool's output, split at '\n', a trailing '\r' dropped.
std::vector<std::string_view> lines(std::string_view text);

// ---- names ----
// "qgate::cuk::dequant_kernel<qgate::cuk::Fmt_q4_0, 0>(...)" -> "dequant_kernel<Fmt_q4_0,0>":
// demangled, project namespaces and the parameter list dropped, no spaces (budget patterns
// are whitespace-separated globs over this name).
std::string short_name(const std::string& mangled);

// ---- budgets (kernels/<backend>/<source>.budget, beside each source) ----
// A line: <kernel-glob> <target-glob> <key><=N ... (waves>=N); '#' starts a comment.
// Every matching line applies; a row no line matches has no budget, which fails the gate.
struct Limit {
  std::string key;
  bool at_least = false;  // waves>=N; every other key is key<=N
  int value = 0;
};
struct BudgetLine {
  std::string kernel_glob, target_glob, file;
  int line = 0;
  std::vector<Limit> limits;
};
std::string parse_budgets(std::string_view text, const std::string& file, std::vector<BudgetLine>& out);
// scratch and spill (AMD: spilled registers, VGPR + SGPR; sm_90: spill bytes, stores + loads)
// are 0 unless a line declares them: a declared one is a WAIVER, printed on every run with its
// budget line (say why in a comment there), never silent.
inline constexpr std::string_view kBudgetKeys[] = {"vgpr", "sgpr", "lds", "scratch", "spill", "waves", "loads",
                                                   "full_waits", "addr64", "exec_branches", "saveexec"};

// One kernel x target, every metric by name (AMD: vgpr agpr sgpr vgpr_spill sgpr_spill scratch
// lds wave waves loads full_waits addr64 exec_branches saveexec; sm_90: vgpr = registers per
// thread, lds = static shared memory, scratch = stack frame, vgpr_spill = spill stores + loads
// in bytes, waves = resident warps per SM).
struct Row {
  std::string target, source, kernel, symbol;
  std::map<std::string, int> m;
  std::string limiter;                // what bounds the occupancy: vgpr, sgpr, lds, max (sm_90: regs)
  std::vector<std::string> failures;  // filled by check_row
  std::vector<std::string> waivers;   // declared spill / scratch within their budget
};
// A spill or scratch fails unless a matching line declares it (then it is a waiver, listed in
// r.waivers); then every matching line's limits. Returns the number of failures added.
int check_row(Row& r, const std::vector<BudgetLine>& budgets);
// A budget line that would admit r as measured (for the "no budget" message and --suggest):
// occupancy as a floor, registers up to the count that would cost a wave (or warp) at that
// occupancy, LDS and the ISA counts as measured, scratch only where there is some.
std::string suggest_line(const Row& r);

}  // namespace qgate::census
