// Atomics: predicated on mask and on owning the element (the 16-element tensor is spread
// over 128 threads, so lanes 16..31 and warps 1..3 hold duplicates and must not add).
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @atom(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<16x!tt.ptr<f32>, #blocked>, tensor<16xi32, #blocked>
    %one = arith.constant dense<1.000000e+00> : tensor<16xf32, #blocked>
    %t = arith.constant dense<true> : tensor<16xi1, #blocked>
    %old = "tt.atomic_rmw"(%pa, %one, %t) {atomic_rmw_op = 5 : i32, sem = 4 : i32, scope = 1 : i32} : (tensor<16x!tt.ptr<f32>, #blocked>, tensor<16xf32, #blocked>, tensor<16xi1, #blocked>) -> tensor<16xf32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %v = "tt.atomic_cas"(%q, %c0, %c1) {sem = 4 : i32, scope = 1 : i32, allocation.offset = 0 : i32} : (!tt.ptr<i32>, i32, i32) -> i32
    %qs = tt.addptr %q, %v : !tt.ptr<i32>, i32
    tt.store %qs, %v : !tt.ptr<i32>
    tt.return
  }
}
// LLIR: and i32 %{{.*}}, 112
// LLIR: atom.global.gpu.acq_rel.add.f32
// LLIR: atom.global.acq_rel.gpu.cas.b32
// PTX: atom.global.gpu.acq_rel.add.f32
// PTX: atom.global.acq_rel.gpu.cas.b32
// PTX: bar.sync
