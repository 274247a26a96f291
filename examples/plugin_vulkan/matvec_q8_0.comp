// The Vulkan example plugin's kernel: y[r][i] = sum over blocks of d * sum_j q_j x_j (q8_0
// weights, f32 activations), one invocation per output. crossed != 0 plants the defect: the
// codes of neighbouring lanes swapped.
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n, k, m, crossed; } p;

uint byte_at(uint off) { return (w[off >> 2] >> ((off & 3u) * 8u)) & 0xFFu; }

void main() {
  const uint t = gl_GlobalInvocationID.x;
  if (t >= p.n * p.m) return;
  const uint r = t / p.n, i = t % p.n, nb = p.k / 32u;
  float acc = 0.0;
  for (uint b = 0u; b < nb; ++b) {
    const uint base = (i * nb + b) * 34u;
    const float d = unpackHalf2x16(byte_at(base) | (byte_at(base + 1u) << 8)).x;
    float s = 0.0;
    for (uint j = 0u; j < 32u; ++j) {
      const uint lane = p.crossed != 0u ? (j ^ 1u) : j;
      const int q = int(byte_at(base + 2u + lane) << 24) >> 24;
      s += float(q) * x[r * p.k + b * 32u + j];
    }
    acc += d * s;
  }
  y[t] = acc;
}
