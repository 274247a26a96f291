// IQ4 codebook: the 16 non-linear values shared by iq4_nl and iq4_xs (format data).
// Transcribed from ggml-org/llama.cpp @ 01243c587feceaa5d6a6c2305535ef2f549c48b8,
// ggml/src/ggml-common.h, table `kvalues_iq4nl` (GGML_TABLE_BEGIN(int8_t, kvalues_iq4nl, 16));
// the source writes them as decimal literals, reproduced here as written.
#include "oracles/formats/iq_tables.hpp"

namespace qgate::iq {

const int8_t kValuesIq4nl[16] = {
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
};

}  // namespace qgate::iq
