#version 450
// Decode-step chain, part 3: a stand-in for attention over the cache, the sum over the
// rows 0..pos of the KV cache (pos read from the device), so every step reads what earlier
// steps wrote.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer KV { float kv[]; };
layout(std430, binding = 1) readonly buffer POS { uint pos[]; };
layout(std430, binding = 2) buffer S { float s[]; };
layout(push_constant) uniform P { uint d; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.d) return;
  float acc = 0.0;
  for (uint t = 0u; t <= pos[0]; ++t) acc += kv[t * pc.d + i];
  s[i] = acc;
}
