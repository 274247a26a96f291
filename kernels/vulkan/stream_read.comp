#version 450
// The bandwidth ceiling for the mat-vec benchmarks: every invocation reads 16-byte words
// with a grid stride and folds them, so nothing is written but a word nobody reads.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer W { uvec4 w[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform P { uint n_vec4; } pc;

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  uvec4 acc = uvec4(0u);
  for (uint i = gl_GlobalInvocationID.x; i < pc.n_vec4; i += stride) acc ^= w[i];
  uint r = acc.x ^ acc.y ^ acc.z ^ acc.w;
  if (r == 0x9E3779B9u) o[gl_GlobalInvocationID.x & 255u] = r;  // keeps the loads live
}
