// A case, as the generators choose it: shape, code pattern, scale mode, activation mode
// and a data seed. Materializing a spec is deterministic, so the spec string is a
// complete one-line reproduction; RapidCheck shrinks specs.
#pragma once
#include <cstdint>
#include <string>

namespace qgate {

enum class CodeMode : int { random, uniform, n_only, k_only, both, one_hot, diagonal };
// Scale classes (properties/gen/materialize.cpp): every scale field of a block drawn from the
// class; signed fields take both signs in every class. mixed: each field of each block draws
// its own class (d and dmin independent, the classes mixed within a row).
enum class ScaleMode : int { normal, subnormal, largest, zero, negative, sub_extreme, smallest_normal, mixed };
enum class ActMode : int { normal, outliers, all_equal, zero_rows };

struct CaseSpec {
  int64_t m = 1, n = 1, k = 32;
  CodeMode codes = CodeMode::random;
  ScaleMode scales = ScaleMode::normal;
  ActMode act = ActMode::normal;
  uint64_t seed = 1;
  // gptq_int4 only
  int group = 32;
  bool sym = false;
  bool gidx = false;
};

const char* name(CodeMode c);
const char* name(ScaleMode s);
const char* name(ActMode a);
std::string to_string(const CaseSpec& s);
// Parses the to_string form; on error returns false and sets err.
bool parse_spec(const std::string& text, CaseSpec& out, std::string& err);

}  // namespace qgate
