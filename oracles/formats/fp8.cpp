// PLACEHOLDER (uncommitted): replaced by the real family file.
#include "oracles/formats/format_impl.hpp"
namespace qgate::formats {
const FormatInfo& format_fp8_e4m3() { static const FormatInfo f{FormatId::fp8_e4m3, "fp8_e4m3", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
const FormatInfo& format_fp8_e5m2() { static const FormatInfo f{FormatId::fp8_e5m2, "fp8_e5m2", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
}
