// Regression case files: a failing case, concrete and self-contained (weight bytes and
// activation bits in hex), replayable on any backend by any kernel of the same op and
// format. Written as one JSON object ("qgate_case": 2; nlohmann-json), atomically (temp file
// + rename): an interrupted run never leaves a half-written case behind. Version 1 files
// (one "key value" line per field, "qgate-case 1" to "end") are still read.
#pragma once
#include <string>

#include "properties/fused_case.hpp"
#include "properties/gen/materialize.hpp"

namespace qgate {

// A fused (fusion or attention) case has no weight format: its file holds the spec and
// every input tensor as f32 bits (positions as int32), and `fused` is set.
struct CaseFile {
  std::string kernel, property, op, format, verdict;
  Case c;
  bool fused = false;
  FusedCase fc;
};

// Returns the path written, or "" with err set.
std::string write_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                            const Case& c, const std::string& verdict, std::string& err);
std::string write_fused_case_file(const std::string& dir, const std::string& kernel, const std::string& property,
                                  const FusedCase& c, const std::string& verdict, std::string& err);
bool read_case_file(const std::string& path, CaseFile& out, std::string& err);

}  // namespace qgate
