// fp16: 8 elements per 16-byte access.
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @add_f16(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %xp = tt.splat %x : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %xa = tt.addptr %xp, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %xv = tt.load %xa : tensor<1024x!tt.ptr<f16>, #blocked>
    %z = arith.addf %xv, %xv : tensor<1024xf16, #blocked>
    %op = tt.splat %o : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %oa = tt.addptr %op, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %oa, %z : tensor<1024x!tt.ptr<f16>, #blocked>
    tt.return
  }
}
// LLIR: ld.global.v4.b32
// LLIR: bitcast i32 %{{.*}} to <2 x half>
// LLIR: fadd half
// PTX: ld.global.v4.b32
// PTX: add.f16x2
// PTX: st.global.v4.b32
// PTX-NOT: ld.global.b16
