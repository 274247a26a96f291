// A raw byte stream, as a user hands it to `qgate dequant`, decoded exactly. This is the
// oracle's input parsing: it decides what a whole input is (a whole number of blocks, or
// one complete gptq_int4 container) and never reads a byte outside `in`.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "oracles/formats/format.hpp"

namespace qgate {

// Block formats: `in` is blocks back to back; out gets (in.size()/block_bytes)*block_elems
// values, block after block, each block in the format's element order.
// gptq_int4: `in` is one whole container (gptq.hpp); its header gives the shape and out
// gets n*k values, row-major [n][k].
// Empty input decodes to zero values for every format. On error (input not a whole number
// of blocks, a non-finite scale, an invalid container) out is left empty and the message
// names the cause and, for block formats, the block.
DecodeError dequant_bytes(const FormatInfo& f, std::span<const uint8_t> in, std::vector<double>& out);

}  // namespace qgate
