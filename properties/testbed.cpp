#include "properties/testbed.hpp"

#include "core/guarded.hpp"
#include "oracles/ops/fusion.hpp"

namespace qgate {

std::string CaseOutcome::summary() const {
  switch (kind) {
    case Kind::rejected_by_kernel: return "kernel refused the case: " + message;
    case Kind::oracle_error: return "oracle rejected the case: " + message;
    default: return message.empty() ? verdict.summary() : "FAIL kernel error: " + message;
  }
}

DecodeError weight_reference(const KernelInfo& k, const Case& c, Reference& ref) {
  return k.op == Op::dequant   ? dequant_ref(c.w, k.prec.out, ref)
         : k.op == Op::gate_up ? gate_up_ref(c.w, c.x.data(), c.spec.m, k.prec, ref, k.math)
                               : matmul_ref(c.w, c.x.data(), c.spec.m, k.prec, ref);
}

CaseOutcome run_case(const KernelInfo& k, const Case& c, bool check_determinism, std::vector<uint8_t>* output) {
  CaseOutcome o;
  if (k.accepts) {
    if (const char* why = k.accepts(c.w)) {
      o.kind = CaseOutcome::Kind::rejected_by_kernel;
      o.message = why;
      return o;
    }
  }
  Reference ref;
  if (DecodeError err = weight_reference(k, c, ref)) {
    o.kind = CaseOutcome::Kind::oracle_error;
    o.message = err.message;
    return o;
  }
  auto launch = [&](GuardedBuffer& buf) { return k.launch(k, LaunchArgs::weight(c.w, c.x.data(), c.spec.m, buf)); };
  GuardedBuffer out(ref.rows * ref.cols, k.prec.out);
  if (const char* e = launch(out)) {
    o.message = e;
    return o;
  }
  o.verdict = judge(ref, out.data(), out.before(), out.redzone(), out.after(), out.redzone());
  if (output) output->assign(out.data(), out.data() + out.bytes());
  if (check_determinism) {
    GuardedBuffer again(ref.rows * ref.cols, k.prec.out);
    if (const char* e = launch(again)) {
      o.message = e;
      return o;
    }
    o.verdict.determinism_checked = true;
    o.verdict.deterministic = std::memcmp(out.data(), again.data(), out.bytes()) == 0;
  }
  return o;
}

}  // namespace qgate
