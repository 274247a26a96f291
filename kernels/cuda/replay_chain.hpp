// The replay probe's decode-step chain on CUDA (core/decode_chain.hpp): RoPE + KV append,
// q8_1 quantization of the rotated vector, the q8_0 int8-dot mat-vec, the cache sum; the
// replay copy captured once into a CUDA graph.
#pragma once
#include <memory>
#include <string>

#include "core/decode_chain.hpp"

namespace qgate::cuk {

std::unique_ptr<DecodeChain> make_decode_chain(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                               std::string& err);

}  // namespace qgate::cuk
