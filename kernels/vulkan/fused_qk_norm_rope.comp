#version 450
// q/k RMSNorm + RoPE + KV-cache write, one workgroup of 64 per head vector: rows
// t * (n_head + n_head_kv) + j are q head j (j < n_head) or k head j - n_head of token t.
// The norm as in fused_add_rmsnorm.comp (depth ceil(d/64) + 6, inversesqrt 2 ULP); the
// position is read from a device buffer (pos[t]), theta_i = f32(pos) * freq[i] with freq[i]
// = powf(base, f32(-2i/d)) computed on the host as the CPU kernel does; sin and cos by
// rope_sincos (8u declared); the rotation a c - b s, a s + b c with every product rounded
// (3 roundings). k rows and v rows go to the caches at row pos[t], other rows untouched.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { float k[]; };
layout(std430, binding = 2) readonly buffer V { float v[]; };
layout(std430, binding = 3) readonly buffer WQ { float wq[]; };
layout(std430, binding = 4) readonly buffer WK { float wk[]; };
layout(std430, binding = 5) readonly buffer POS { int pos[]; };
layout(std430, binding = 6) readonly buffer FREQ { float freq[]; };
layout(std430, binding = 7) buffer OQ { float oq[]; };
layout(std430, binding = 8) buffer KC { float kc[]; };
layout(std430, binding = 9) buffer VC { float vc[]; };
layout(push_constant) uniform P {
  uint tokens; uint n_head; uint n_head_kv; uint d; uint kv_cap; uint neox;
  uint off_q; uint off_k; uint off_v; float eps; float inv_d;
} pc;
#include "fused_common.glsl"

shared float part[64];

void main() {
  uint heads = pc.n_head + pc.n_head_kv;
  uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (row >= pc.tokens * heads) return;  // uniform across the workgroup
  uint t = row / heads, j = row % heads, lid = gl_LocalInvocationID.x, d = pc.d;
  bool is_q = j < pc.n_head;
  uint hk = j - pc.n_head;
  uint src = is_q ? (t * pc.n_head + j) * d : (t * pc.n_head_kv + hk) * d;
  uint p = uint(pos[t]);
#ifdef MUTANT_kv_slot_off
  uint slot = (p + 1u) % pc.kv_cap;  // planted: K and V appended one slot past the position
#else
  uint slot = p;
#endif
  precise float acc = 0.0;
  for (uint i = lid; i < d; i += 64u) {
    float a = is_q ? q[src + i] : k[src + i];
    precise float sq = a * a;
    acc = acc + sq;
  }
  part[lid] = acc;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (lid < s) {
      precise float tt = part[lid] + part[lid + s];
      part[lid] = tt;
    }
    barrier();
  }
  precise float mean = part[0] * pc.inv_d;
  precise float vv = mean + pc.eps;
  precise float r = inversesqrt(vv);
  uint dst = is_q ? pc.off_q + src : pc.off_k + (hk * pc.kv_cap + slot) * d;
  uint half_d = d / 2u;
  for (uint i = lid; i < half_d; i += 64u) {
    bool neox = pc.neox != 0u;
    uint i0 = neox ? i : 2u * i, i1 = neox ? i + half_d : 2u * i + 1u;
    float s0 = is_q ? q[src + i0] : k[src + i0], s1 = is_q ? q[src + i1] : k[src + i1];
    float w0 = is_q ? wq[i0] : wk[i0], w1 = is_q ? wq[i1] : wk[i1];
    precise float a0 = (s0 * r) * w0;
    precise float a1 = (s1 * r) * w1;
    precise float theta = float(p) * freq[i];
    float sn, cs;
    rope_sincos(theta, sn, cs);
    precise float ac = a0 * cs, bs = a1 * sn, as_ = a0 * sn, bc = a1 * cs;
    precise float o0 = ac - bs;
    precise float o1 = as_ + bc;
    if (is_q) {
      oq[dst + i0] = o0;
      oq[dst + i1] = o1;
    } else {
      kc[dst + i0] = o0;
      kc[dst + i1] = o1;
    }
  }
  if (!is_q)
    for (uint i = lid; i < d; i += 64u) vc[pc.off_v + (hk * pc.kv_cap + slot) * d + i] = v[(t * pc.n_head_kv + hk) * d + i];
}
