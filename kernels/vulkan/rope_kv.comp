#version 450
// Decode-step chain, part 1: rotate x by RoPE (NeoX pairing: i with i + d/2) at the position
// read from a DEVICE buffer, write the rotated vector and append it to the KV cache at row
// pos. A replayed command buffer must see each step's new position: reading it from memory
// makes that true; a position passed as a push constant is baked at recording time (the
// planted mutant MUTANT_pos_by_value does exactly that).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer POS { uint pos[]; };
layout(std430, binding = 2) buffer XR { float xr[]; };
layout(std430, binding = 3) buffer KV { float kv[]; };
layout(push_constant) uniform P { uint d; uint pos_by_value; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint h = pc.d / 2u;
  if (i >= h) return;
#ifdef MUTANT_pos_by_value
  uint p = pc.pos_by_value;
#else
  uint p = pos[0];
#endif
  float theta = float(p) * exp2(-log2(10000.0) * 2.0 * float(i) / float(pc.d));
  float c = cos(theta), s = sin(theta);
  float a = x[i], b = x[i + h];
  float ra = a * c - b * s, rb = a * s + b * c;
  xr[i] = ra;
  xr[i + h] = rb;
  kv[p * pc.d + i] = ra;
  kv[p * pc.d + i + h] = rb;
}
