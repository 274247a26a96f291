// Family selection for the per-family .cu files: a file defines QGATE_CUDA_IF_<its family>(...)
// as __VA_ARGS__ before including this; every other family expands to nothing.
#pragma once
#ifndef QGATE_CUDA_IF_legacy
#define QGATE_CUDA_IF_legacy(...)
#endif
#ifndef QGATE_CUDA_IF_kquant
#define QGATE_CUDA_IF_kquant(...)
#endif
#ifndef QGATE_CUDA_IF_iq
#define QGATE_CUDA_IF_iq(...)
#endif
#ifndef QGATE_CUDA_IF_lowbit
#define QGATE_CUDA_IF_lowbit(...)
#endif
#ifndef QGATE_CUDA_IF_gptq
#define QGATE_CUDA_IF_gptq(...)
#endif
