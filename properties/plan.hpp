// What a property draws and how it runs, as data: the plan column of its properties.inc row,
// parsed once. The generators (weight, fused and MoE cases) draw each field from the
// plan's alternatives and take their default where the plan names none; nothing in the
// gate branches on a property's name.
//
// Syntax: items separated by ';', each `key=alt|alt|...` or a flag.
//   driver=sampled|session|every_code|scale_patterns   how the cases come (default sampled)
//   shapes=plain|ragged|many_rows|long_kv              which shape set (default plain)
//   codes=, scales=, act=, values=, routing=           alternatives drawn for that field
//                                                      (names as in gen/case_spec.hpp)
//   rerun        each case runs twice and must be bit-identical (kernels that declare
//                themselves deterministic)
//   vacuous_ok   mostly-zero expected outputs do not make the run vacuous (e.g. zero scales)
// The first alternative is where RapidCheck shrinks to.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "properties/gen/case_spec.hpp"

namespace qgate {

enum class Driver : int { sampled, session, every_code, scale_patterns };
enum class Shapes : int { plain, ragged, many_rows, long_kv };

struct Plan {
  Driver driver = Driver::sampled;
  Shapes shapes = Shapes::plain;
  std::vector<CodeMode> codes;
  std::vector<ScaleMode> scales;
  std::vector<ActMode> act;
  std::vector<ValueMode> values;
  std::vector<Routing> routing;
  bool rerun = false;
  bool vacuous_ok = false;
  // The property draws the weights' codes or scales itself (a given weight cannot serve it).
  bool draws_weights() const { return !codes.empty() || !scales.empty(); }
};

// Parses a plan; on error returns false and says which item is wrong in err.
bool parse_plan(std::string_view text, Plan& out, std::string& err);

}  // namespace qgate
