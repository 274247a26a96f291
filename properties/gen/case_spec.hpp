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
// Fusion and attention inputs (properties/fused_case.cpp).
enum class ValueMode : int {
  normal,      // uniform values of moderate size
  tiny,        // norms: rows whose mean square is within a decade of eps; a zero row
  ties,        // router: logits from a small set (exact ties) and adjacent floats (near-ties)
  extremes,    // silu: gates at the exp overflow edge, +-0, tiny and large values
  peaked,      // attention: large score scale (a few keys carry the softmax)
  rising,      // attention: scores growing along the sequence (the max moves every tile)
};
// Indexed MoE expert ids per token (properties/moe_case.cpp), distinct within a token:
// shuffled; every token the same experts starting from the last; descending; shuffled with
// expert 0 first for two tokens in three.
enum class Routing : int { random, one_expert, reversed, skewed };

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
const char* name(ValueMode v);
const char* name(Routing r);
// The value named `text` of an enum above; false if no value has that name.
bool from_name(const std::string& text, CodeMode& out);
bool from_name(const std::string& text, ScaleMode& out);
bool from_name(const std::string& text, ActMode& out);
bool from_name(const std::string& text, ValueMode& out);
bool from_name(const std::string& text, Routing& out);
std::string to_string(const CaseSpec& s);
// Parses the to_string form; on error returns false and sets err.
bool parse_spec(const std::string& text, CaseSpec& out, std::string& err);

}  // namespace qgate
