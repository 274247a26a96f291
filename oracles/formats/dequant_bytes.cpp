#include "oracles/formats/dequant_bytes.hpp"

#include <cstring>
#include <string>

#include "oracles/formats/bytes.hpp"
#include "oracles/formats/gptq.hpp"

namespace qgate {
namespace {

DecodeError dequant_blocks(const FormatInfo& f, std::span<const uint8_t> in, std::vector<double>& out) {
  const size_t bb = static_cast<size_t>(f.block_bytes), be = static_cast<size_t>(f.block_elems);
  if (in.size() % bb != 0)
    return {"truncated input: " + std::to_string(in.size()) + " bytes is not a whole number of " +
            std::to_string(bb) + "-byte " + std::string(f.name) + " blocks"};
  const size_t blocks = in.size() / bb;
  out.assign(blocks * be, 0.0);
  std::vector<double> mag(be);
  for (size_t b = 0; b < blocks; ++b) {
    if (auto e = f.decode_block(in.data() + b * bb, out.data() + b * be, mag.data())) {
      out.clear();
      e.message += " (block " + std::to_string(b) + ", byte offset " + std::to_string(b * bb) + ")";
      return e;
    }
  }
  return {};
}

DecodeError dequant_container(const FormatInfo& f, std::span<const uint8_t> in, std::vector<double>& out) {
  QTensor t;
  t.fmt = &f;
  t.bytes.assign(in.begin(), in.end());
  // The shape lives in the header; read it only once there is a header with the right
  // magic. Otherwise the shape stays 0x0 and decode_tensor reports what is wrong.
  if (in.size() >= gptq::kHeaderBytes && std::memcmp(in.data(), gptq::kMagic, sizeof gptq::kMagic) == 0) {
    t.k = le::u32(in.data() + 8);
    t.n = le::u32(in.data() + 12);
  }
  std::vector<double> mag;
  if (auto e = decode_tensor(t, out, mag)) {
    out.clear();
    return e;
  }
  return {};
}

}  // namespace

DecodeError dequant_bytes(const FormatInfo& f, std::span<const uint8_t> in, std::vector<double>& out) {
  out.clear();
  if (in.empty()) return {};
  return f.tensor_level() ? dequant_container(f, in, out) : dequant_blocks(f, in, out);
}

}  // namespace qgate
