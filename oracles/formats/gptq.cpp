// PLACEHOLDER (uncommitted): replaced by the real family file.
#include "oracles/formats/format_impl.hpp"
namespace qgate::formats {
const FormatInfo& format_gptq_int4() { static const FormatInfo f{FormatId::gptq_int4, "gptq_int4", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
}
