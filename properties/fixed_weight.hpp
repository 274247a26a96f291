// A second case source: the weight is given (a real tensor, e.g. read from a GGUF file)
// and only what a kernel does with it varies: activations, M, and row prefixes of the
// weight. The generated-weight properties (properties.inc) are untouched; the ones that
// make sense over a given weight run here under the same names:
//   random_blocks        random activations over the given weight (dequant: the weight itself)
//   activation_extremes  outliers, all-equal rows, zero rows
//   ragged_shapes        M and N (row prefixes of the weight) below, at and above the tile
//   deterministic        a second run is bit-identical
// Cases are enumerated smallest first (no shrinking needed: the first failure is the
// smallest), deterministic in the seed.
#pragma once
#include <functional>
#include <string>

#include "properties/catalog.hpp"
#include "properties/gate_run.hpp"

namespace qgate {

// Does this property have a fixed-weight form for this kernel?
bool applies_fixed(const PropertyInfo& p, const KernelInfo& k);

struct FixedWeightOptions {
  RunOptions run;
  // What a failure's one-line reproduction starts with (e.g. "qgate gate --gguf m.gguf
  // --tensor blk.0.ffn_down.weight"); --kernel, --property and --seed are appended.
  std::string repro_prefix;
};

// Why this kernel cannot take this weight at all ("" = it can): format mismatch, K not a
// multiple of the kernel's activation block, the kernel's accepts() refusing it.
std::string fixed_weight_mismatch(const KernelInfo& k, const QTensor& w);

PropertyRun run_property_fixed(const KernelInfo& k, const PropertyInfo& p, const QTensor& w,
                               const FixedWeightOptions& opt);

// Every kernel the filter selects whose format is the weight's, under every property with a
// fixed-weight form: the same report run_gate() gives, so matrix, failures and reports follow.
GateReport run_gate_fixed(const GateFilter& f, const QTensor& w, const FixedWeightOptions& opt,
                          const std::function<void(size_t, size_t, const std::string&)>& progress = {});

}  // namespace qgate
