// A masked load with `other`: the other values are moved into the destination registers
// unconditionally (a destination written only under a predicate stays live around a loop
// in ptxas' eyes), then the predicated vector load (evict_first: L1 priority and an L2
// cache-policy register).
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @masked(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<-1.500000e+00> : tensor<128xf32, #blocked>
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<128xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #blocked>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %xa = tt.addptr %xp, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %xv = tt.load %xa, %m, %cst {cache = 3 : i32, evict = 2 : i32} : tensor<128x!tt.ptr<f32>, #blocked>
    %op = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %op, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    tt.store %oa, %xv {cache = 5 : i32} : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
// LLIR: {{^|[^@!]}}mov.b32 $0, $7;
// LLIR: @$4 ld.global.L1::evict_first.L2::cache_hint.v4.b32 { $0, $1, $2, $3 }, [ $5 + 0 ], $6;
// LLIR-SAME: "=r,=r,=r,=r,b,l,l,r,r,r,r"
// LLIR: st.global.cs.v4.b32
// PTX: mov.b32 %r[[OTHER:[0-9]+]], -1077936128;
// PTX-NOT: @!%p1 mov
// PTX: mov.b32 %r{{[0-9]+}}, %r[[OTHER]];
// PTX: @%p1 ld.global.L1::evict_first.L2::cache_hint.v4.b32
// PTX: st.global.cs.v4.b32
