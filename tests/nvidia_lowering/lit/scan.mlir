// cumsum over 1024 elements / 4 warps: sequential in-thread scan of 8 registers (two
// runs of 4? no: the repetition bit is scanned last), Hillis-Steele with shfl.sync.up over
// the 32 lanes, warp totals through shared memory.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @cumsum(%x: tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked> {
    %y = "tt.scan"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.scan.return %t : f32
    }) {axis = 0 : i32, reverse = false} : (tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked>
    tt.return %y : tensor<1024xf32, #blocked>
  }
}
// LLIR-COUNT-5: @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %{{.*}}, i32 {{1|2|4|8|16}}, i32 0)
// LLIR: @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %{{.*}}, i32 1, i32 0)
// LLIR: @llvm.nvvm.shfl.sync.idx.i32
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR: store float
// LLIR: call void @llvm.nvvm.barrier0()
// LLIR: load <4 x float>
