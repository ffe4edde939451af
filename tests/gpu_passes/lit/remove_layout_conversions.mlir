// RUN: tritium-opt %s -p 'tritongpu-remove-layout-conversions' --split-input-file | FileCheck %s

// Folds: convert(convert(x)) becomes one convert, which backward rematerialization then
// removes (make_range and splat are recreated in the store's layout), and a convert of a
// constant is the constant in the new layout.
// CHECK: #[[L:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @folds
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[CST:.*]] = arith.constant dense<1.000000e+00> : tensor<1024xf32, #[[L]]>
// CHECK: tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #[[L]]>
// CHECK: arith.addi %{{.*}}, %{{.*}} : tensor<1024xi32, #[[L]]>
// CHECK: tt.store %{{.*}}, %[[CST]] : tensor<1024x!tt.ptr<f32>, #[[L]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @folds(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32) {
    %cst = arith.constant dense<1.000000e+00> : tensor<1024xf32, #blocked>
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %arg1 : i32 -> tensor<1024xi32, #blocked>
    %2 = arith.addi %0, %1 : tensor<1024xi32, #blocked>
    %3 = ttg.convert_layout %2 : tensor<1024xi32, #blocked> -> tensor<1024xi32, #blocked2>
    %4 = ttg.convert_layout %3 : tensor<1024xi32, #blocked2> -> tensor<1024xi32, #blocked1>
    %5 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %6 = tt.addptr %5, %4 : tensor<1024x!tt.ptr<f32>, #blocked1>, tensor<1024xi32, #blocked1>
    %7 = ttg.convert_layout %cst : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
    tt.store %6, %7 : tensor<1024x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// Forward propagation: the loaded value's layout flows through the elementwise ops,
// the loop-carried accumulator and the scf.if; the zero init is recreated in it.
// CHECK: #[[V:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @carried
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<512xf32, #[[V]]>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<512xf32, #[[V]]>)
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<512x!tt.ptr<f32>, #[[V]]>
// CHECK: %[[I:.*]] = scf.if %{{.*}} -> (tensor<512xf32, #[[V]]>)
// CHECK: arith.mulf %[[X]], %[[X]] : tensor<512xf32, #[[V]]>
// CHECK: arith.addf %[[ACC]], %[[I]] : tensor<512xf32, #[[V]]>
// CHECK: scf.yield %{{.*}} : tensor<512xf32, #[[V]]>
// CHECK: tt.store %{{.*}}, %[[R]] : tensor<512x!tt.ptr<f32>, #[[V]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @carried(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32, %arg2: i1) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<512xf32, #blocked>
    %0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %3 = scf.for %arg3 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg4 = %cst) -> (tensor<512xf32, #blocked>) : i32 {
      %4 = ttg.convert_layout %2 : tensor<512x!tt.ptr<f32>, #blocked> -> tensor<512x!tt.ptr<f32>, #blocked1>
      %5 = tt.load %4 : tensor<512x!tt.ptr<f32>, #blocked1>
      %6 = ttg.convert_layout %5 : tensor<512xf32, #blocked1> -> tensor<512xf32, #blocked>
      %7 = scf.if %arg2 -> (tensor<512xf32, #blocked>) {
        %8 = arith.mulf %6, %6 : tensor<512xf32, #blocked>
        scf.yield %8 : tensor<512xf32, #blocked>
      } else {
        scf.yield %6 : tensor<512xf32, #blocked>
      }
      %9 = arith.addf %arg4, %7 : tensor<512xf32, #blocked>
      scf.yield %9 : tensor<512xf32, #blocked>
    }
    %10 = ttg.convert_layout %2 : tensor<512x!tt.ptr<f32>, #blocked> -> tensor<512x!tt.ptr<f32>, #blocked1>
    %11 = ttg.convert_layout %3 : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
    tt.store %10, %11 : tensor<512x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// A row sum stored through a 1-D coalesced pointer: the reduce result lives in a slice of
// the tile's layout and cannot be recomputed elsewhere, so exactly one convert stays.
// CHECK-LABEL: tt.func public @row_sum
// CHECK: "tt.reduce"
// CHECK: ttg.convert_layout
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @row_sum(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: tensor<16x64x!tt.ptr<f32>, #blocked>) {
    %0 = tt.load %arg1 : tensor<16x64x!tt.ptr<f32>, #blocked>
    %1 = "tt.reduce"(%0) ({
    ^bb0(%arg2: f32, %arg3: f32):
      %2 = arith.addf %arg2, %arg3 : f32
      tt.reduce.return %2 : f32
    }) {axis = 1 : i32} : (tensor<16x64xf32, #blocked>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %3 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked1>
    %4 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>, #blocked1>
    %5 = tt.addptr %4, %3 : tensor<16x!tt.ptr<f32>, #blocked1>, tensor<16xi32, #blocked1>
    %6 = ttg.convert_layout %1 : tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<16xf32, #blocked1>
    tt.store %5, %6 : tensor<16x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// Cost model: %h is stored in both layouts. Recomputing its two-op chain in the second
// layout is cheaper than converting; the long chain %k is converted instead.
// CHECK-LABEL: tt.func public @cost
// CHECK-COUNT-1: ttg.convert_layout
// CHECK-NOT: ttg.convert_layout
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cost(%a: tensor<32x32x!tt.ptr<i32>, #blocked>, %b: tensor<32x32x!tt.ptr<i32>, #blocked1>, %c: tensor<32x32x!tt.ptr<i32>, #blocked>, %d: tensor<32x32x!tt.ptr<i32>, #blocked1>, %s: i32) {
    %0 = tt.splat %s : i32 -> tensor<32x32xi32, #blocked>
    %h1 = arith.muli %0, %0 : tensor<32x32xi32, #blocked>
    %h = arith.addi %h1, %0 : tensor<32x32xi32, #blocked>
    tt.store %a, %h : tensor<32x32x!tt.ptr<i32>, #blocked>
    %hc = ttg.convert_layout %h : tensor<32x32xi32, #blocked> -> tensor<32x32xi32, #blocked1>
    tt.store %b, %hc : tensor<32x32x!tt.ptr<i32>, #blocked1>
    %k1 = arith.muli %h, %h : tensor<32x32xi32, #blocked>
    %k2 = arith.muli %k1, %k1 : tensor<32x32xi32, #blocked>
    %k3 = arith.xori %k2, %k1 : tensor<32x32xi32, #blocked>
    %k4 = arith.muli %k3, %k3 : tensor<32x32xi32, #blocked>
    %k5 = arith.xori %k4, %k2 : tensor<32x32xi32, #blocked>
    %k6 = arith.muli %k5, %k5 : tensor<32x32xi32, #blocked>
    %k7 = arith.xori %k6, %k3 : tensor<32x32xi32, #blocked>
    %k8 = arith.muli %k7, %k7 : tensor<32x32xi32, #blocked>
    %k = arith.xori %k8, %k4 : tensor<32x32xi32, #blocked>
    tt.store %c, %k : tensor<32x32x!tt.ptr<i32>, #blocked>
    %kc = ttg.convert_layout %k : tensor<32x32xi32, #blocked> -> tensor<32x32xi32, #blocked1>
    tt.store %d, %kc : tensor<32x32x!tt.ptr<i32>, #blocked1>
    tt.return
  }
}

// -----

// Upstream's hoistConvertOnTopOfExtOrBroadcast: a loaded fp16 tile (an anchor) widened
// by extf and converted to the wgmma accumulator layout is converted before the extf,
// moving half the bytes through shared memory.
// CHECK-LABEL: tt.func public @hoist_ext
// CHECK: %[[X:.*]] = tt.load
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[X]] : tensor<128x128xf16, #blocked> -> tensor<128x128xf16, #mma>
// CHECK-NEXT: arith.extf %[[C]] : tensor<128x128xf16, #mma> to tensor<128x128xf32, #mma>
// CHECK-NOT: ttg.convert_layout
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @hoist_ext(%p: tensor<128x128x!tt.ptr<f16>, #blocked>, %acc: tensor<128x128xf32, #mma>, %q: tensor<128x128x!tt.ptr<f32>, #mma>) {
    %x = tt.load %p : tensor<128x128x!tt.ptr<f16>, #blocked>
    %y = arith.extf %x : tensor<128x128xf16, #blocked> to tensor<128x128xf32, #blocked>
    %z = ttg.convert_layout %y : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #mma>
    %s = arith.addf %acc, %z : tensor<128x128xf32, #mma>
    tt.store %q, %s : tensor<128x128x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

// Inductor's epilogue bias, a load of a broadcast row of pointers: it is read again in
// the accumulator layout (the pointer row and the row/column masks converted where they
// are made, a few elements each) instead of converting the loaded 128x128 tile.
// CHECK-LABEL: tt.func public @bias
// CHECK-NOT: ttg.convert_layout {{.*}} tensor<128x128
// CHECK: %[[P:.*]] = tt.broadcast %{{.*}} : tensor<1x128x!tt.ptr<f16>, #mma> -> tensor<128x128x!tt.ptr<f16>, #mma>
// CHECK: %[[X:.*]] = tt.load %[[P]], %{{.*}} : tensor<128x128x!tt.ptr<f16>, #mma>
// CHECK-NEXT: arith.extf %[[X]] : tensor<128x128xf16, #mma> to tensor<128x128xf32, #mma>
// CHECK-NOT: ttg.convert_layout
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bias(%b: tensor<1x128x!tt.ptr<f16>, #blocked>, %mr: tensor<128x1xi1, #blocked>, %mc: tensor<1x128xi1, #blocked>, %acc: tensor<128x128xf32, #mma>, %q: tensor<128x128x!tt.ptr<f32>, #mma>) {
    %bp = tt.broadcast %b : tensor<1x128x!tt.ptr<f16>, #blocked> -> tensor<128x128x!tt.ptr<f16>, #blocked>
    %m0 = tt.broadcast %mr : tensor<128x1xi1, #blocked> -> tensor<128x128xi1, #blocked>
    %m1 = tt.broadcast %mc : tensor<1x128xi1, #blocked> -> tensor<128x128xi1, #blocked>
    %m = arith.andi %m0, %m1 : tensor<128x128xi1, #blocked>
    %x = tt.load %bp, %m : tensor<128x128x!tt.ptr<f16>, #blocked>
    %y = arith.extf %x : tensor<128x128xf16, #blocked> to tensor<128x128xf32, #blocked>
    %z = ttg.convert_layout %y : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #mma>
    %s = arith.addf %acc, %z : tensor<128x128xf32, #mma>
    tt.store %q, %s : tensor<128x128x!tt.ptr<f32>, #mma>
    tt.return
  }
}

// -----

// The same load also stored in its own layout is not read twice: the fp16 tile is
// converted (above the extf).
// CHECK-LABEL: tt.func public @bias_kept
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<128x128x!tt.ptr<f16>, #blocked>
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout %[[X]] : tensor<128x128xf16, #blocked> -> tensor<128x128xf16, #mma>
// CHECK-NOT: ttg.convert_layout
// CHECK: arith.extf %[[C]] : tensor<128x128xf16, #mma> to tensor<128x128xf32, #mma>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bias_kept(%b: tensor<1x128x!tt.ptr<f16>, #blocked>, %acc: tensor<128x128xf32, #mma>, %q: tensor<128x128x!tt.ptr<f32>, #mma>, %r: tensor<128x128x!tt.ptr<f16>, #blocked>) {
    %bp = tt.broadcast %b : tensor<1x128x!tt.ptr<f16>, #blocked> -> tensor<128x128x!tt.ptr<f16>, #blocked>
    %x = tt.load %bp : tensor<128x128x!tt.ptr<f16>, #blocked>
    tt.store %r, %x : tensor<128x128x!tt.ptr<f16>, #blocked>
    %y = arith.extf %x : tensor<128x128xf16, #blocked> to tensor<128x128xf32, #blocked>
    %z = ttg.convert_layout %y : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #mma>
    %s = arith.addf %acc, %z : tensor<128x128xf32, #mma>
    tt.store %q, %s : tensor<128x128x!tt.ptr<f32>, #mma>
    tt.return
  }
}
