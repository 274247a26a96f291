// The replay probe's decode-step chain on Vulkan (core/decode_chain.hpp): rope_kv.comp, the
// q8_0 mat-vec (matvec.comp) and kv_sum.comp; the replay copy recorded once into a command
// buffer and resubmitted.
#pragma once
#include <memory>
#include <string>

#include "core/decode_chain.hpp"

namespace qgate::vkk {

std::unique_ptr<DecodeChain> make_decode_chain(uint32_t d, uint32_t n, uint32_t max_pos, uint64_t seed,
                                               std::string& err);

}  // namespace qgate::vkk
