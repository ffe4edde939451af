// Registers only: no instruction at all (a renaming), no shared memory, no shuffle.
#a = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @cvt(%x: tensor<32x32xf32, #a>) -> tensor<32x32xf32, #b> {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    tt.return %y : tensor<32x32xf32, #b>
  }
}
// LLIR-NOT: shfl
// LLIR-NOT: barrier0
// LLIR: insertvalue
