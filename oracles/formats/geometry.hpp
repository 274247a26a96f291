// The block geometry of every format, from its one statement in formats.inc, as constant
// expressions for host C++, CUDA and HIP device code alike (no library headers):
//   qgate::block::q4_K::elems, ::sub, ::bytes, ::ggml
// elems = elements per block (0 for a tensor-level format), sub = elements sharing one
// scale, bytes = bytes per block, ggml = the ggml_type id or -1. The Vulkan shaders get the
// same numbers as QK, SUB and BLOCK_BYTES from the build (kernels/vulkan/shaders.cmake).
#pragma once

namespace qgate::block {

template <int Ggml, int Elems, int Sub, int Bytes>
struct Geometry {
  static constexpr int ggml = Ggml, elems = Elems, sub = Sub, bytes = Bytes;
  static constexpr int nsub = Sub ? Elems / Sub : 0;
  static_assert(Elems == 0 || (Sub > 0 && Elems % Sub == 0), "a block is whole sub-blocks");
};

#define QGATE_FORMAT(sym, ggml_id, family, elems, sub, bytes) \
  using sym = Geometry<ggml_id, elems, sub, bytes>;
#include "oracles/formats/formats.inc"
#undef QGATE_FORMAT

}  // namespace qgate::block
