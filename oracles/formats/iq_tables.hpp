// Codebook tables of the IQ formats: format data, transcribed once from ggml's
// src/ggml-common.h (llama.cpp: ggml/src/ggml-common.h), shared by the oracles and the
// kernels (a table is the format's definition, not an implementation). Each definition
// file names the commit it was transcribed from; fixtures/golden/iq_tables_test.cpp checks
// every table's size and value set (fixtures/golden/iq{1,2,3,4}_test.cpp).
#pragma once
#include <cstdint>

namespace qgate::iq {

// IQ2 family: 8 unsigned magnitudes per entry, one byte each, each in {8, 25, 43}.
extern const uint64_t kIq2xxsGrid[256];
extern const uint64_t kIq2xsGrid[512];
extern const uint64_t kIq2sGrid[1024];
// ksigns_iq2xs: entry i = i | (parity(i) << 7) (8th sign bit makes the count even).
extern const uint8_t kSignsIq2xs[128];
// kmask_iq2xs: bit j selects weight j of an 8-group.
inline constexpr uint8_t kMaskIq2xs[8] = {1, 2, 4, 8, 16, 32, 64, 128};

// IQ3 family: 4 unsigned magnitudes per entry, one byte each.
extern const uint32_t kIq3xxsGrid[256];  // values in {4, 12, 20, 28, 36, 44, 52, 62}
extern const uint32_t kIq3sGrid[512];    // values in {1, 3, 5, 7, 9, 11, 13, 15}

// IQ1 family: 8 int8 values per entry in {-1, 0, +1} (bytes 0xff, 0x00, 0x01).
extern const uint64_t kIq1sGrid[2048];
inline constexpr double kIq1sDelta = 0.125;  // IQ1S_DELTA
inline constexpr double kIq1mDelta = 0.125;  // IQ1M_DELTA

// IQ4: the 16 non-linear values.
extern const int8_t kValuesIq4nl[16];

}  // namespace qgate::iq
