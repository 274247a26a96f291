// Every unpacker, for explicit template instantiation in the generic kernel files.
#pragma once
#define QGATE_FOR_EACH_UNPACKER(X)                                                           \
  X(Unpack_q4_0) X(Unpack_q4_1) X(Unpack_q5_0) X(Unpack_q5_1) X(Unpack_q8_0) X(Unpack_q8_1) \
  X(Unpack_q8_K) X(Unpack_q2_K) X(Unpack_q3_K) X(Unpack_q4_K) X(Unpack_q5_K) X(Unpack_q6_K) \
  X(Unpack_mxfp4) X(Unpack_fp8_e4m3) X(Unpack_fp8_e5m2) X(Unpack_iq2_xxs) X(Unpack_iq2_xs)    \
  X(Unpack_iq2_s) X(Unpack_iq3_xxs) X(Unpack_iq3_s) X(Unpack_iq1_s) X(Unpack_iq1_m)           \
  X(Unpack_iq4_nl) X(Unpack_iq4_xs) X(Unpack_tq1_0) X(Unpack_tq2_0) X(Unpack_nvfp4)          \
  X(Unpack_q1_0) X(Unpack_q2_0)
