// tt.print -> vprintf with upstream's "pid (x, y, z) idx (i)prefix value" format;
// tt.assert -> __assertfail.
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @p(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #b>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #b>
    %xa = tt.addptr %xs, %r : tensor<32x!tt.ptr<f32>, #b>, tensor<32xi32, #b>
    %v = tt.load %xa : tensor<32x!tt.ptr<f32>, #b>
    "tt.print"(%v) {hex = false, isSigned = array<i32: 0>, prefix = " x: "} : (tensor<32xf32, #b>) -> ()
    %z = arith.constant dense<0.000000e+00> : tensor<32xf32, #b>
    %ok = arith.cmpf oge, %v, %z : tensor<32xf32, #b>
    "tt.assert"(%ok) {message = "negative"} : (tensor<32xi1, #b>) -> ()
    tt.return
  }
}
// LLIR: c"pid (%u, %u, %u) idx (%2u) x: %f\0A\00"
// LLIR: c"negative\00"
// LLIR: call i32 @vprintf(
// LLIR: call void @__assertfail(
// PTX: call.uni (retval0), vprintf
// PTX: __assertfail
