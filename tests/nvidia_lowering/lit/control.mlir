// scf.for with a tensor accumulator: one phi per register; scf.if on a scalar.
#b = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @loop(%x: tensor<64xf32, #b>, %n: i32) -> tensor<64xf32, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64xf32, #b>) : i32 {
      %odd = arith.andi %i, %c1 : i32
      %t = arith.cmpi eq, %odd, %c0 : i32
      %v = scf.if %t -> (tensor<64xf32, #b>) {
        %a = arith.addf %acc, %x : tensor<64xf32, #b>
        scf.yield %a : tensor<64xf32, #b>
      } else {
        %a = arith.mulf %acc, %x : tensor<64xf32, #b>
        scf.yield %a : tensor<64xf32, #b>
      }
      scf.yield %v : tensor<64xf32, #b>
    }
    tt.return %r : tensor<64xf32, #b>
  }
}
// LLIR: for_hdr{{[0-9]+}}:
// LLIR-NEXT: %iv.{{[0-9]+}} = phi i32
// LLIR-NEXT: %arg.{{[0-9]+}} = phi float
// LLIR-NEXT: %arg.{{[0-9]+}} = phi float
// LLIR: if_end{{[0-9]+}}:
// LLIR-NEXT: phi float
// LLIR-NEXT: phi float
