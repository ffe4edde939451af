// Eviction policies, as upstream on sm_80+: the L1 priority qualifier plus an L2 cache-policy
// register from `createpolicy.fractional.L2::evict_*` passed with `.L2::cache_hint`. One
// policy register per function and policy (two evict_last loads share one); a store's
// eviction policy is lowered the same way; a load without one gets neither.
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @evict(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<256xf16, #blocked>
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<256xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #blocked>
    %xp = tt.splat %x : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #blocked>
    %xa = tt.addptr %xp, %r : tensor<256x!tt.ptr<f16>, #blocked>, tensor<256xi32, #blocked>
    %a = tt.load %xa, %m, %zero {evict = 3 : i32} : tensor<256x!tt.ptr<f16>, #blocked>
    %yp = tt.splat %y : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #blocked>
    %ya = tt.addptr %yp, %r : tensor<256x!tt.ptr<f16>, #blocked>, tensor<256xi32, #blocked>
    %b = tt.load %ya, %m, %zero {evict = 3 : i32} : tensor<256x!tt.ptr<f16>, #blocked>
    %c = tt.load %xa : tensor<256x!tt.ptr<f16>, #blocked>
    %s = arith.addf %a, %b : tensor<256xf16, #blocked>
    %t = arith.addf %s, %c : tensor<256xf16, #blocked>
    %op = tt.splat %o : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #blocked>
    %oa = tt.addptr %op, %r : tensor<256x!tt.ptr<f16>, #blocked>, tensor<256xi32, #blocked>
    tt.store %oa, %t, %m {evict = 2 : i32} : tensor<256x!tt.ptr<f16>, #blocked>
    tt.return
  }
}
// LLIR: entry:
// LLIR: %[[LAST:pol[.0-9]+]] = call i64 asm "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"()
// LLIR: %[[FIRST:pol[.0-9]+]] = call i64 asm "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"()
// LLIR-NOT: createpolicy
// LLIR: @$1 ld.global.L1::evict_last.L2::cache_hint.b32 $0, [ $2 + 0 ], $3;
// LLIR-SAME: "=r,b,l,l,r"(i1 %{{.*}}, ptr addrspace(1) %{{.*}}, i64 %[[LAST]],
// LLIR: @$1 ld.global.L1::evict_last.L2::cache_hint.b32 $0, [ $2 + 0 ], $3;
// LLIR-SAME: i64 %[[LAST]],
// LLIR-NOT: cache_hint
// LLIR: ld.global.b32 $0, [ $1 + 0 ];
// LLIR: @$0 st.global.L1::evict_first.L2::cache_hint.b32 [ $1 + 0 ], $2, $3;
// LLIR-SAME: i64 %[[FIRST]])
// PTX: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
// PTX: createpolicy.fractional.L2::evict_first.b64 [[FIRST:%rd[0-9]+]], 1.0;
// PTX-NOT: createpolicy
// PTX: ld.global.L1::evict_last.L2::cache_hint.b32 %r{{[0-9]+}}, [ %rd{{[0-9]+}} + 0 ], [[LAST]];
// PTX: ld.global.L1::evict_last.L2::cache_hint.b32 %r{{[0-9]+}}, [ %rd{{[0-9]+}} + 0 ], [[LAST]];
// PTX: st.global.L1::evict_first.L2::cache_hint.b32 [ %rd{{[0-9]+}} + 0 ], %r{{[0-9]+}}, [[FIRST]];
