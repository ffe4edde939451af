// A conversion that only moves data between lanes of a warp: shfl.sync.idx, no shared memory.
#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @cvt(%x: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    tt.return %y : tensor<32x32xf32, #b>
  }
}
// LLIR: @llvm.nvvm.shfl.sync.idx.i32
// LLIR-NOT: barrier0
// LLIR-NOT: addrspace(3)
