// CPU fusion and attention kernels (registered in kernels/fused.inc). All f32.
#pragma once
#include "core/fused_args.hpp"

namespace qgate::cpu {

inline constexpr int kNormLanes = 8;     // RMSNorm sum of squares: 8 lanes + a 3-level tree
inline constexpr int kFlashTile = 32;    // keys per online-softmax tile

const char* add_rmsnorm_f32(const FusedArgs& a);
const char* qk_norm_rope_kv_f32(const FusedArgs& a);
const char* moe_route_f32(const FusedArgs& a);
const char* silu_mul_f32(const FusedArgs& a);
const char* attn_eager_f32(const FusedArgs& a);
template <OutType P>
const char* attn_flash(const FusedArgs& a);

}  // namespace qgate::cpu
