// RUN: tritium-opt %s -p 'tritongpu-F32DotTC' --split-input-file | FileCheck %s
// RUN: tritium-opt %s -p 'tritongpu-F32DotTC,tritongpu-accelerate-matmul' --split-input-file | FileCheck %s --check-prefix=WG

// Input: a 64x32 @ 32x64 fp32 dot with an accumulator, 4 warps, the real pipeline up to
// tritongpu-remove-layout-conversions (one function per input_precision).

// tf32x3: each operand split into its tf32 rounding (cvt.rna) and the residual; the two
// cross terms go first into a zero accumulator, NaNs there become 0, then big x big, then the
// original accumulator is added.
// CHECK-LABEL: @dot_tf32x3
// CHECK: %[[C:.*]] = ttg.convert_layout
// CHECK-NEXT: %[[AB:.*]] = "tt.elementwise_inline_asm"(%[[A:[0-9]+]]) {asm_string = "cvt.rna.tf32.f32 $0, $1;", constraints = "=r,r", packed_element = 1 : i32, pure = true}
// CHECK-NEXT: %[[BB:.*]] = "tt.elementwise_inline_asm"(%[[B:[0-9]+]])
// CHECK-NEXT: %[[AS:.*]] = arith.subf %[[A]], %[[AB]] : tensor<64x32xf32
// CHECK-NEXT: %[[BS:.*]] = arith.subf %[[B]], %[[BB]] : tensor<32x64xf32
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32
// CHECK-NEXT: %[[D1:.*]] = tt.dot %[[AS]], %[[BB]], %[[Z]], inputPrecision = tf32
// CHECK-NEXT: %[[D2:.*]] = tt.dot %[[AB]], %[[BS]], %[[D1]], inputPrecision = tf32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[D2]], %[[D2]]
// CHECK-NEXT: %[[Z2:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT: %[[M:.*]] = arith.select %[[NAN]], %[[Z2]], %[[D2]]
// CHECK-NEXT: %[[D3:.*]] = tt.dot %[[AB]], %[[BB]], %[[M]], inputPrecision = tf32
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[D3]], %[[C]]
// CHECK-NEXT: ttg.convert_layout %[[R]]
// CHECK-NOT: tf32x3
// WG-LABEL: @dot_tf32x3
// WG-COUNT-3: "ttng.warp_group_dot"
// WG-NOT: tt.dot
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_tf32x3(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %cst_1 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %5 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %6 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %7 = arith.muli %6, %cst : tensor<64x1xi32, #blocked>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %9 = tt.addptr %8, %7 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %10 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %11 = tt.broadcast %9 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x32x!tt.ptr<f32>, #blocked>
    %12 = tt.broadcast %10 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %13 = tt.addptr %11, %12 : tensor<64x32x!tt.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
    %14 = tt.load %13 : tensor<64x32x!tt.ptr<f32>, #blocked>
    %15 = tt.expand_dims %3 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %16 = arith.muli %15, %cst_0 : tensor<32x1xi32, #blocked1>
    %17 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>, #blocked1>
    %18 = tt.addptr %17, %16 : tensor<32x1x!tt.ptr<f32>, #blocked1>, tensor<32x1xi32, #blocked1>
    %19 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %20 = tt.broadcast %18 : tensor<32x1x!tt.ptr<f32>, #blocked1> -> tensor<32x64x!tt.ptr<f32>, #blocked1>
    %21 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %22 = tt.addptr %20, %21 : tensor<32x64x!tt.ptr<f32>, #blocked1>, tensor<32x64xi32, #blocked1>
    %23 = tt.load %22 : tensor<32x64x!tt.ptr<f32>, #blocked1>
    %24 = arith.muli %5, %cst_1 : tensor<64x1xi32, #blocked1>
    %25 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked1>
    %26 = tt.addptr %25, %24 : tensor<64x1x!tt.ptr<f32>, #blocked1>, tensor<64x1xi32, #blocked1>
    %27 = tt.broadcast %26 : tensor<64x1x!tt.ptr<f32>, #blocked1> -> tensor<64x64x!tt.ptr<f32>, #blocked1>
    %28 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %29 = tt.addptr %27, %28 : tensor<64x64x!tt.ptr<f32>, #blocked1>, tensor<64x64xi32, #blocked1>
    %30 = tt.load %29 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    %31 = ttg.convert_layout %30 : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %32 = tt.dot %14, %23, %31, inputPrecision = tf32x3 {maxNumImpreciseAcc = 0 : i32} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %33 = ttg.convert_layout %32 : tensor<64x64xf32, #blocked2> -> tensor<64x64xf32, #blocked1>
    tt.store %29, %33 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// bf16x3: hi = bf16(x), mid = bf16(x - hi); mid x hi and hi x mid, NaNs zeroed, hi x hi,
// plus the accumulator. The parts are bf16, so the dots are plain bf16 dots.
// CHECK-LABEL: @dot_bf16x3
// CHECK: %[[C:.*]] = ttg.convert_layout
// CHECK-NEXT: %[[AH:.*]] = arith.truncf %[[A:[0-9]+]] : tensor<64x32xf32, #[[L:blocked[0-9]*]]> to tensor<64x32xbf16, #[[L]]>
// CHECK-NEXT: %[[AHX:.*]] = arith.extf %[[AH]]
// CHECK-NEXT: %[[AR:.*]] = arith.subf %[[A]], %[[AHX]]
// CHECK-NEXT: %[[AM:.*]] = arith.truncf %[[AR]]
// CHECK-NEXT: %[[BH:.*]] = arith.truncf %[[B:[0-9]+]]
// CHECK-NEXT: %[[BHX:.*]] = arith.extf %[[BH]]
// CHECK-NEXT: %[[BR:.*]] = arith.subf %[[B]], %[[BHX]]
// CHECK-NEXT: %[[BM:.*]] = arith.truncf %[[BR]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT: %[[D1:.*]] = tt.dot %[[AM]], %[[BH]], %[[Z]], inputPrecision = ieee {{.*}} : tensor<64x32xbf16
// CHECK-NEXT: %[[D2:.*]] = tt.dot %[[AH]], %[[BM]], %[[D1]], inputPrecision = ieee
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[D2]], %[[D2]]
// CHECK-NEXT: arith.constant dense<0.000000e+00>
// CHECK-NEXT: %[[M:.*]] = arith.select %[[NAN]], %{{.*}}, %[[D2]]
// CHECK-NEXT: %[[D3:.*]] = tt.dot %[[AH]], %[[BH]], %[[M]], inputPrecision = ieee
// CHECK-NEXT: arith.addf %[[D3]], %[[C]]
// WG-LABEL: @dot_bf16x3
// WG-COUNT-3: "ttng.warp_group_dot"
// WG-NOT: tt.dot
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_bf16x3(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %cst_1 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %5 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %6 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %7 = arith.muli %6, %cst : tensor<64x1xi32, #blocked>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %9 = tt.addptr %8, %7 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %10 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %11 = tt.broadcast %9 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x32x!tt.ptr<f32>, #blocked>
    %12 = tt.broadcast %10 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %13 = tt.addptr %11, %12 : tensor<64x32x!tt.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
    %14 = tt.load %13 : tensor<64x32x!tt.ptr<f32>, #blocked>
    %15 = tt.expand_dims %3 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %16 = arith.muli %15, %cst_0 : tensor<32x1xi32, #blocked1>
    %17 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>, #blocked1>
    %18 = tt.addptr %17, %16 : tensor<32x1x!tt.ptr<f32>, #blocked1>, tensor<32x1xi32, #blocked1>
    %19 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %20 = tt.broadcast %18 : tensor<32x1x!tt.ptr<f32>, #blocked1> -> tensor<32x64x!tt.ptr<f32>, #blocked1>
    %21 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %22 = tt.addptr %20, %21 : tensor<32x64x!tt.ptr<f32>, #blocked1>, tensor<32x64xi32, #blocked1>
    %23 = tt.load %22 : tensor<32x64x!tt.ptr<f32>, #blocked1>
    %24 = arith.muli %5, %cst_1 : tensor<64x1xi32, #blocked1>
    %25 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked1>
    %26 = tt.addptr %25, %24 : tensor<64x1x!tt.ptr<f32>, #blocked1>, tensor<64x1xi32, #blocked1>
    %27 = tt.broadcast %26 : tensor<64x1x!tt.ptr<f32>, #blocked1> -> tensor<64x64x!tt.ptr<f32>, #blocked1>
    %28 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %29 = tt.addptr %27, %28 : tensor<64x64x!tt.ptr<f32>, #blocked1>, tensor<64x64xi32, #blocked1>
    %30 = tt.load %29 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    %31 = ttg.convert_layout %30 : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %32 = tt.dot %14, %23, %31, inputPrecision = bf16x3 {maxNumImpreciseAcc = 0 : i32} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %33 = ttg.convert_layout %32 : tensor<64x64xf32, #blocked2> -> tensor<64x64xf32, #blocked1>
    tt.store %29, %33 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// bf16x6: three parts each; mid x mid, lo x hi, hi x lo, then bf16x3's terms.
// CHECK-LABEL: @dot_bf16x6
// CHECK: %[[AH:.*]] = arith.truncf %[[A:[0-9]+]]
// CHECK-NEXT: %[[AHX:.*]] = arith.extf %[[AH]]
// CHECK-NEXT: %[[AR:.*]] = arith.subf %[[A]], %[[AHX]]
// CHECK-NEXT: %[[AM:.*]] = arith.truncf %[[AR]]
// CHECK-NEXT: %[[AMX:.*]] = arith.extf %[[AM]]
// CHECK-NEXT: %[[AR2:.*]] = arith.subf %[[AR]], %[[AMX]]
// CHECK-NEXT: %[[AL:.*]] = arith.truncf %[[AR2]]
// CHECK-NEXT: %[[BH:.*]] = arith.truncf
// CHECK: %[[BM:.*]] = arith.truncf
// CHECK: %[[BL:.*]] = arith.truncf
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT: %[[D1:.*]] = tt.dot %[[AM]], %[[BM]], %[[Z]], inputPrecision = ieee
// CHECK-NEXT: %[[D2:.*]] = tt.dot %[[AL]], %[[BH]], %[[D1]], inputPrecision = ieee
// CHECK-NEXT: %[[D3:.*]] = tt.dot %[[AH]], %[[BL]], %[[D2]], inputPrecision = ieee
// CHECK-NEXT: %[[D4:.*]] = tt.dot %[[AM]], %[[BH]], %[[D3]], inputPrecision = ieee
// CHECK-NEXT: %[[D5:.*]] = tt.dot %[[AH]], %[[BM]], %[[D4]], inputPrecision = ieee
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[D5]], %[[D5]]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[M:.*]] = arith.select %[[NAN]], %{{.*}}, %[[D5]]
// CHECK-NEXT: %[[D6:.*]] = tt.dot %[[AH]], %[[BH]], %[[M]], inputPrecision = ieee
// CHECK-NEXT: arith.addf %[[D6]]
// WG-LABEL: @dot_bf16x6
// WG-COUNT-6: "ttng.warp_group_dot"
// WG-NOT: tt.dot
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_bf16x6(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %cst_1 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %5 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %6 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %7 = arith.muli %6, %cst : tensor<64x1xi32, #blocked>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %9 = tt.addptr %8, %7 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %10 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %11 = tt.broadcast %9 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x32x!tt.ptr<f32>, #blocked>
    %12 = tt.broadcast %10 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %13 = tt.addptr %11, %12 : tensor<64x32x!tt.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
    %14 = tt.load %13 : tensor<64x32x!tt.ptr<f32>, #blocked>
    %15 = tt.expand_dims %3 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %16 = arith.muli %15, %cst_0 : tensor<32x1xi32, #blocked1>
    %17 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>, #blocked1>
    %18 = tt.addptr %17, %16 : tensor<32x1x!tt.ptr<f32>, #blocked1>, tensor<32x1xi32, #blocked1>
    %19 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %20 = tt.broadcast %18 : tensor<32x1x!tt.ptr<f32>, #blocked1> -> tensor<32x64x!tt.ptr<f32>, #blocked1>
    %21 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %22 = tt.addptr %20, %21 : tensor<32x64x!tt.ptr<f32>, #blocked1>, tensor<32x64xi32, #blocked1>
    %23 = tt.load %22 : tensor<32x64x!tt.ptr<f32>, #blocked1>
    %24 = arith.muli %5, %cst_1 : tensor<64x1xi32, #blocked1>
    %25 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked1>
    %26 = tt.addptr %25, %24 : tensor<64x1x!tt.ptr<f32>, #blocked1>, tensor<64x1xi32, #blocked1>
    %27 = tt.broadcast %26 : tensor<64x1x!tt.ptr<f32>, #blocked1> -> tensor<64x64x!tt.ptr<f32>, #blocked1>
    %28 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %29 = tt.addptr %27, %28 : tensor<64x64x!tt.ptr<f32>, #blocked1>, tensor<64x64xi32, #blocked1>
    %30 = tt.load %29 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    %31 = ttg.convert_layout %30 : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %32 = tt.dot %14, %23, %31, inputPrecision = bf16x6 {maxNumImpreciseAcc = 0 : i32} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %33 = ttg.convert_layout %32 : tensor<64x64xf32, #blocked2> -> tensor<64x64xf32, #blocked1>
    tt.store %29, %33 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// A plain tf32 dot is left alone.
// CHECK-LABEL: @dot_tf32
// CHECK-NOT: inline_asm
// CHECK: tt.dot %{{.*}}, inputPrecision = tf32
// CHECK-NOT: tt.dot
// WG-LABEL: @dot_tf32
// WG-COUNT-1: "ttng.warp_group_dot"
// WG-NOT: "ttng.warp_group_dot"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot_tf32(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %cst_1 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %5 = tt.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %6 = tt.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %7 = arith.muli %6, %cst : tensor<64x1xi32, #blocked>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %9 = tt.addptr %8, %7 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %10 = tt.expand_dims %4 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %11 = tt.broadcast %9 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x32x!tt.ptr<f32>, #blocked>
    %12 = tt.broadcast %10 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %13 = tt.addptr %11, %12 : tensor<64x32x!tt.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
    %14 = tt.load %13 : tensor<64x32x!tt.ptr<f32>, #blocked>
    %15 = tt.expand_dims %3 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %16 = arith.muli %15, %cst_0 : tensor<32x1xi32, #blocked1>
    %17 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>, #blocked1>
    %18 = tt.addptr %17, %16 : tensor<32x1x!tt.ptr<f32>, #blocked1>, tensor<32x1xi32, #blocked1>
    %19 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %20 = tt.broadcast %18 : tensor<32x1x!tt.ptr<f32>, #blocked1> -> tensor<32x64x!tt.ptr<f32>, #blocked1>
    %21 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %22 = tt.addptr %20, %21 : tensor<32x64x!tt.ptr<f32>, #blocked1>, tensor<32x64xi32, #blocked1>
    %23 = tt.load %22 : tensor<32x64x!tt.ptr<f32>, #blocked1>
    %24 = arith.muli %5, %cst_1 : tensor<64x1xi32, #blocked1>
    %25 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked1>
    %26 = tt.addptr %25, %24 : tensor<64x1x!tt.ptr<f32>, #blocked1>, tensor<64x1xi32, #blocked1>
    %27 = tt.broadcast %26 : tensor<64x1x!tt.ptr<f32>, #blocked1> -> tensor<64x64x!tt.ptr<f32>, #blocked1>
    %28 = tt.broadcast %19 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %29 = tt.addptr %27, %28 : tensor<64x64x!tt.ptr<f32>, #blocked1>, tensor<64x64xi32, #blocked1>
    %30 = tt.load %29 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    %31 = ttg.convert_layout %30 : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %32 = tt.dot %14, %23, %31, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked1> -> tensor<64x64xf32, #blocked2>
    %33 = ttg.convert_layout %32 : tensor<64x64xf32, #blocked2> -> tensor<64x64xf32, #blocked1>
    tt.store %29, %33 : tensor<64x64x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}
