// The indexed-MoE properties (Op::moe_matmul kernels; properties.inc moe_*): stacked expert
// weights from the weight generator, expert ids per token, the fp64 reference
// moe_matmul_ref, and the same verdict as every weight op (nbad, poison, redzones, and a
// second identical run).
#pragma once
#include "properties/catalog.hpp"

namespace qgate {

PropertyRun run_moe_property(const KernelInfo& k, const PropertyInfo& p, const RunOptions& opt);

}  // namespace qgate
