// Math: exp -> mul by log2(e) + ex2.approx, divf -> div.full (approximate), precise
// sqrt/div -> IEEE rn, erf -> libdevice, maximumf -> max.NaN, clamp(x, -a, a) -> xorsign.
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @m(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #b>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #b>
    %pa = tt.addptr %ps, %r : tensor<32x!tt.ptr<f32>, #b>, tensor<32xi32, #b>
    %x = tt.load %pa : tensor<32x!tt.ptr<f32>, #b>
    %e = math.exp %x : tensor<32xf32, #b>
    %d = arith.divf %e, %x : tensor<32xf32, #b>
    %s = "tt.precise_sqrt"(%d) : (tensor<32xf32, #b>) -> tensor<32xf32, #b>
    %q = "tt.precise_divf"(%s, %x) : (tensor<32xf32, #b>, tensor<32xf32, #b>) -> tensor<32xf32, #b>
    %f = math.erf %q : tensor<32xf32, #b>
    %mx = arith.maximumf %f, %x : tensor<32xf32, #b>
    %cst = arith.constant dense<2.000000e+00> : tensor<32xf32, #b>
    %ncst = arith.constant dense<-2.000000e+00> : tensor<32xf32, #b>
    %c = "tt.clampf"(%mx, %ncst, %cst) {propagateNan = 0 : i32} : (tensor<32xf32, #b>, tensor<32xf32, #b>, tensor<32xf32, #b>) -> tensor<32xf32, #b>
    tt.store %pa, %c : tensor<32x!tt.ptr<f32>, #b>
    tt.return
  }
}
// LLIR: fmul float %{{.*}}, 0x3FF7154760000000
// LLIR: @llvm.nvvm.ex2.approx.f(
// LLIR: @llvm.nvvm.div.full
// LLIR: @llvm.nvvm.sqrt.rn.f
// LLIR: @llvm.nvvm.div.rn.f
// LLIR: @__nv_erff
// LLIR: @llvm.maximum.f32
// LLIR: @llvm.nvvm.fmin.xorsign.abs.f
// PTX: ex2.approx.f32
// PTX: div.full.f32
// PTX: sqrt.rn.f32
// PTX: div.rn.f32
// PTX: max.NaN.f32
// PTX: min.xorsign.abs.f32
