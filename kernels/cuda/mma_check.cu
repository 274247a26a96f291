// The int8 tile products of vendor.cuh run on the device for the fragment test
// (mma_test.cpp): per tile group, the instruction form and the portable form (the HIP
// fallback) from the same fragments.
#include "kernels/cuda/launchers.hpp"
#include "backends/cuda/vendor.cuh"

namespace qgate::cuk {
namespace {

// frag: per tile, 32 lanes x (4 A ints, 2 B ints); out: per tile, 32 lanes x 4 ints, for
// k = 32 (instruction, portable) then k = 16 (instruction, portable): 16 ints per lane.
__global__ void mma_check_kernel(const int* __restrict__ frag, int* __restrict__ out, int tiles) {
  const int tile = int(blockIdx.x) * (int(blockDim.x) / 32) + int(threadIdx.x) / 32;
  if (tile >= tiles) return;  // whole groups return together
  const int lane = qg_group_lane();
  const int* f = frag + (int64_t(tile) * 32 + lane) * 6;
  const int a[4] = {f[0], f[1], f[2], f[3]}, b[2] = {f[4], f[5]};
  const int c[4] = {lane, -lane, 7 * lane, 0};  // a non-zero accumulator input
  const int a16[2] = {a[0], a[1]};
  int d[4][4];
  qg_mma_s8_16x8x32(d[0], a, b, c);
  qg_mma_s8_16x8x32_portable(d[1], a, b, c);
  qg_mma_s8_16x8x16(d[2], a16, b[0], c);
  qg_mma_s8_16x8x16_portable(d[3], a16, b[0], c);
  int* o = out + (int64_t(tile) * 32 + lane) * 16;
  for (int v = 0; v < 4; ++v)
    for (int e = 0; e < 4; ++e) o[4 * v + e] = d[v][e];
}

}  // namespace

void mma_check(const int* frag, int* out, int tiles, void* stream) {
  if (tiles <= 0) return;
  mma_check_kernel<<<unsigned((tiles + 1) / 2), 64, 0, static_cast<gpuStream_t>(stream)>>>(frag, out, tiles);
}

}  // namespace qgate::cuk
