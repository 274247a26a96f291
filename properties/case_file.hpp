// Regression case files: a failing case, concrete and self-contained (weight bytes and
// activation bits in hex), replayable on any backend by any kernel of the same op and
// format. Written atomically (temp file + rename): an interrupted run never leaves a
// half-written case behind.
#pragma once
#include <string>

#include "properties/gen/materialize.hpp"

namespace qgate {

struct CaseFile {
  std::string kernel, property, op, format, verdict;
  Case c;
};

// Returns the path written, or "" with err set.
std::string write_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                            const Case& c, const std::string& verdict, std::string& err);
bool read_case_file(const std::string& path, CaseFile& out, std::string& err);

}  // namespace qgate
