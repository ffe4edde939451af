// fp8: pairs of f32 go through one cvt.rn.satfinite.e4m3x2.f32; e5m2 -> f16 with cvt.rn.f16x2.e5m2x2.
#b = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @f8(%x: tensor<64xf32, #b>, %y: tensor<64xf8E5M2, #b>) -> (tensor<64xf8E4M3FN, #b>, tensor<64xf16, #b>) {
    %a = "tt.fp_to_fp"(%x) {rounding = 1 : i32} : (tensor<64xf32, #b>) -> tensor<64xf8E4M3FN, #b>
    %h = tt.fp_to_fp %y : tensor<64xf8E5M2, #b> -> tensor<64xf16, #b>
    tt.return %a, %h : tensor<64xf8E4M3FN, #b>, tensor<64xf16, #b>
  }
}
// LLIR-COUNT-1: cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;
// LLIR-COUNT-1: cvt.rn.f16x2.e5m2x2 $0, $1;
// LLIR: ret { i8, i8, half, half }
