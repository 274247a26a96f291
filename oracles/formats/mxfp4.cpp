// PLACEHOLDER (uncommitted): replaced by the real family file.
#include "oracles/formats/format_impl.hpp"
namespace qgate::formats {
const FormatInfo& format_mxfp4() { static const FormatInfo f{FormatId::mxfp4, "mxfp4", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
}
