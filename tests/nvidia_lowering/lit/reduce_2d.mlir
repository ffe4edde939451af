// Sum along axis 1 of a [32, 64] tile whose rows span 8 lanes and one warp: registers,
// then three butterfly steps (lanes 4, 2, 1... of the row), no shared memory.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #ttg.slice<{dim = 1, parent = #blocked}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rowsum(%x: tensor<32x64xf32, #blocked>) -> tensor<32xf32, #slice> attributes {sym_visibility = "private"} {
    %s = "tt.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) {axis = 1 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<32xf32, #slice>
    tt.return %s : tensor<32xf32, #slice>
  }
}
// LLIR: define internal { float, float } @rowsum(
// LLIR-COUNT-3: @llvm.nvvm.shfl.sync.bfly.i32
// LLIR-NOT: barrier0
// LLIR: ret { float, float }
