// A host output buffer with redzones on both sides and the payload pre-filled with a NaN
// poison, so a kernel that writes past its output or leaves elements unwritten is seen.
// Device backends mirror the whole region (redzones included) on the device, launch into
// the payload, and copy the whole region back, so device-side damage shows here too.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "oracles/verdict/verdict.hpp"

namespace qgate {

class GuardedBuffer {
 public:
  // Redzones are 8 times the payload (at least 64 bytes, a multiple of 16): a tile of 8
  // rows that writes them all for a one-row output lands in the guard, not in someone
  // else's memory (a crash instead of a verdict, once the rows are long: many_rows).
  GuardedBuffer(int64_t elements, OutType type)
      : elem_(type == OutType::f32 ? 4 : 2), bytes_(static_cast<size_t>(elements) * elem_),
        red_((std::max<size_t>(64, 8 * bytes_) + 15) / 16 * 16), mem_(bytes_ + 2 * red_, kRedzoneByte) {
    for (int64_t i = 0; i < elements; ++i) {
      if (type == OutType::f32) std::memcpy(data() + 4 * i, &kPoisonF32, 4);
      else std::memcpy(data() + 2 * i, type == OutType::f16 ? &kPoisonF16 : &kPoisonBF16, 2);
    }
  }
  uint8_t* data() { return mem_.data() + red_; }
  uint8_t* region() { return mem_.data(); }  // redzone + payload + redzone, 16-byte aligned offsets
  size_t region_bytes() const { return mem_.size(); }
  const uint8_t* data() const { return mem_.data() + red_; }
  const uint8_t* before() const { return mem_.data(); }
  const uint8_t* after() const { return mem_.data() + red_ + bytes_; }
  size_t redzone() const { return red_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t elem_, bytes_, red_;
  std::vector<uint8_t> mem_;
};

}  // namespace qgate
