#include "kernels/mutant.hpp"

#include <array>

namespace qgate::mutant {
namespace {
Id g_active = Id::none;
}

std::span<const Info> all() {
  static const std::array<Info, static_cast<size_t>(Id::count) - 1> table = {{
#define QGATE_MUTANT(id, target, killer, what) {Id::id, #id, target, killer, what},
#include "kernels/mutants.inc"
#undef QGATE_MUTANT
  }};
  return table;
}

const Info* find(std::string_view name) {
  for (const Info& i : all())
    if (i.name == name) return &i;
  return nullptr;
}

bool compiled_in() {
#ifdef QGATE_MUTANTS
  return true;
#else
  return false;
#endif
}
void activate(Id id) { g_active = id; }
Id active() { return g_active; }

}  // namespace qgate::mutant
