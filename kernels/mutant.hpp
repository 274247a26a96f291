// Planted defects. Compiled in only when QGATE_MUTANTS is defined (the mutant build of
// the kernels library); in release code QGATE_MUTANT_ON(x) is the constant false and
// the defect is dead code the compiler removes.
#pragma once
#include <span>
#include <string_view>

namespace qgate::mutant {

enum class Id : int {
  none,
#define QGATE_MUTANT(id, target, killer, what) id,
#include "kernels/mutants.inc"
#undef QGATE_MUTANT
  count
};

struct Info {
  Id id;
  std::string_view name;
  std::string_view target;  // the kernel it is planted in
  std::string_view killer;  // the property that must kill it
  std::string_view what;    // the real bug it models
};

std::span<const Info> all();
const Info* find(std::string_view name);
bool compiled_in();  // true in the mutant build
void activate(Id id);
Id active();

}  // namespace qgate::mutant

#ifdef QGATE_MUTANTS
#define QGATE_MUTANT_ON(x) (::qgate::mutant::active() == ::qgate::mutant::Id::x)
#else
#define QGATE_MUTANT_ON(x) false
#endif
