// The testbed (CUTLASS style): for one kernel and one concrete case, compute the oracle's
// {value, bound}, run the kernel into a poisoned, guarded output, and judge it.
#pragma once
#include <string>
#include <vector>

#include "core/kernel.hpp"
#include "oracles/verdict/verdict.hpp"
#include "properties/gen/materialize.hpp"

namespace qgate {

struct CaseOutcome {
  enum class Kind { ran, rejected_by_kernel, oracle_error } kind = Kind::ran;
  Verdict verdict;
  std::string message;  // kernel refusal or oracle error
  bool pass() const { return kind == Kind::ran && verdict.pass() && message.empty(); }
  std::string summary() const;
};

// The oracle's {value, bound} per element of a weight op's (dequant, matmul, gate_up) case
// for the math the kernel declares.
DecodeError weight_reference(const KernelInfo& k, const Case& c, Reference& ref);

// output, when given, receives the kernel's output bytes (for comparisons across launches).
CaseOutcome run_case(const KernelInfo& k, const Case& c, bool check_determinism,
                     std::vector<uint8_t>* output = nullptr);

}  // namespace qgate
