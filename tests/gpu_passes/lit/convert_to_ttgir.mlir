// RUN: tritium-opt %s -p 'convert-triton-to-tritongpu{num-warps=4}' --split-input-file | FileCheck %s
// RUN: tritium-opt %s -p 'convert-triton-to-tritongpu{num-warps=8 target=cuda:80}' --split-input-file | FileCheck %s --check-prefix=W8

// Vector add: one default layout for every tensor, module attributes for the launch.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// CHECK-LABEL: tt.func public @add_kernel
// CHECK: tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
// CHECK: tt.splat %{{.*}} : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK: tt.load %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<1024xf32, #blocked>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NOT: ttg.convert_layout
// W8: #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// W8: "ttg.num-warps" = 8 : i32, ttg.target = "cuda:80"
module {
  tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>>
    %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f32>>
    %13 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %14 = tt.addptr %13, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %15 = arith.addf %9, %12 : tensor<1024xf32>
    tt.store %14, %15, %6 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// Row reductions of a 4x1024 tile: the reduce result is a slice of its operand's layout;
// expand_dims operands and broadcast operands are converted to what the contract wants.
// CHECK-DAG: #[[B2D:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[B1D:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[BCOL:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tt.func public @rows
// CHECK: %[[R:.*]] = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #[[B1D]]>
// CHECK: %[[RS:.*]] = ttg.convert_layout %[[R]] : tensor<4xi32, #[[B1D]]> -> tensor<4xi32, #{{.*}}slice{{.*}}>
// CHECK: tt.expand_dims %[[RS]] {axis = 1 : i32} : tensor<4xi32, #{{.*}}slice{{.*}}> -> tensor<4x1xi32, #[[BCOL]]>
// CHECK: %[[C:.*]] = ttg.convert_layout %{{.*}} : tensor<4x1xi32, #[[BCOL]]> -> tensor<4x1xi32, #[[B2D]]>
// CHECK: tt.broadcast %[[C]] : tensor<4x1xi32, #[[B2D]]> -> tensor<4x1024xi32, #[[B2D]]>
// CHECK: %[[MAX:.*]] = "tt.reduce"
// CHECK: arith.maxnumf
// CHECK: (tensor<4x1024xf32, #[[B2D]]>) -> tensor<4xf32, #{{.*}}slice{{.*}}>
// CHECK: ttg.convert_layout %[[MAX]]
module {
  tt.func public @rows(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0xFF800000> : tensor<4x1024xf32>
    %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %2 = tt.expand_dims %0 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %3 = tt.splat %arg1 : i32 -> tensor<4x1xi32>
    %4 = arith.muli %2, %3 : tensor<4x1xi32>
    %5 = tt.expand_dims %1 {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
    %6 = tt.broadcast %4 : tensor<4x1xi32> -> tensor<4x1024xi32>
    %7 = tt.broadcast %5 : tensor<1x1024xi32> -> tensor<4x1024xi32>
    %8 = arith.addi %6, %7 : tensor<4x1024xi32>
    %9 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x1024x!tt.ptr<f32>>
    %10 = tt.addptr %9, %8 : tensor<4x1024x!tt.ptr<f32>>, tensor<4x1024xi32>
    %11 = tt.load %10 : tensor<4x1024x!tt.ptr<f32>>
    %12 = "tt.reduce"(%11) ({
    ^bb0(%arg2: f32, %arg3: f32):
      %13 = arith.maxnumf %arg2, %arg3 : f32
      tt.reduce.return %13 : f32
    }) {axis = 1 : i32} : (tensor<4x1024xf32>) -> tensor<4xf32>
    %14 = tt.expand_dims %12 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %15 = tt.broadcast %14 : tensor<4x1xf32> -> tensor<4x1024xf32>
    %16 = arith.subf %11, %15 : tensor<4x1024xf32>
    tt.store %10, %16 : tensor<4x1024x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// Loop-carried tensors: init, region argument, yield and result share one type.
// CHECK-LABEL: tt.func public @accumulate
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<256xf32, #blocked>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<256xf32, #blocked>) : i32
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %{{.*}} : tensor<256xf32, #blocked>
// CHECK: scf.yield %[[SUM]] : tensor<256xf32, #blocked>
// CHECK: (tensor<256xf32, #blocked>) -> f32
module {
  tt.func public @accumulate(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32 {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32>) {
    %c0_i32 = arith.constant 0 : i32
    %c256_i32 = arith.constant 256 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<256xf32>
    %0 = scf.for %arg3 = %c0_i32 to %arg1 step %c256_i32 iter_args(%arg4 = %cst) -> (tensor<256xf32>) : i32 {
      %1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
      %2 = tt.splat %arg3 : i32 -> tensor<256xi32>
      %3 = arith.addi %2, %1 : tensor<256xi32>
      %4 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
      %5 = tt.addptr %4, %3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
      %6 = tt.load %5 : tensor<256x!tt.ptr<f32>>
      %7 = arith.addf %arg4, %6 : tensor<256xf32>
      scf.yield %7 : tensor<256xf32>
    }
    %8 = "tt.reduce"(%0) ({
    ^bb0(%arg5: f32, %arg6: f32):
      %9 = arith.addf %arg5, %arg6 : f32
      tt.reduce.return %9 : f32
    }) {axis = 0 : i32} : (tensor<256xf32>) -> f32
    tt.store %arg2, %8 : !tt.ptr<f32>
    tt.return
  }
}
