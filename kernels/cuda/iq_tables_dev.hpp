// Device addresses of the IQ codebooks: the bytes of the oracles' tables
// (oracles/formats/iq_tables.hpp), uploaded once as they are (launch.cpp) and passed to
// every kernel by value. Format data is never retyped in device code.
#pragma once
#include <cstdint>

namespace qgate::cuk {

struct IqTables {
  const uint64_t* iq2xxs = nullptr;  // kIq2xxsGrid[256]
  const uint64_t* iq2xs = nullptr;   // kIq2xsGrid[512]
  const uint64_t* iq2s = nullptr;    // kIq2sGrid[1024]
  const uint32_t* iq3xxs = nullptr;  // kIq3xxsGrid[256]
  const uint32_t* iq3s = nullptr;    // kIq3sGrid[512]
  const uint64_t* iq1s = nullptr;    // kIq1sGrid[2048]
  const int8_t* iq4nl = nullptr;     // kValuesIq4nl[16]
};

}  // namespace qgate::cuk
