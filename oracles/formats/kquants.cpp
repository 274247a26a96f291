// PLACEHOLDER (uncommitted): replaced by the real family file.
#include "oracles/formats/format_impl.hpp"
namespace qgate::formats {
const FormatInfo& format_q2_K() { static const FormatInfo f{FormatId::q2_K, "q2_K", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
const FormatInfo& format_q3_K() { static const FormatInfo f{FormatId::q3_K, "q3_K", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
const FormatInfo& format_q4_K() { static const FormatInfo f{FormatId::q4_K, "q4_K", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
const FormatInfo& format_q5_K() { static const FormatInfo f{FormatId::q5_K, "q5_K", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
const FormatInfo& format_q6_K() { static const FormatInfo f{FormatId::q6_K, "q6_K", -1, 32, 1, 1, -1, false, {}, "", nullptr, nullptr, nullptr}; return f; }
}
