// RUN: tritium-opt %s -p 'convert-triton-to-tritongpu{num-warps=4},tritongpu-coalesce,tritongpu-remove-layout-conversions,cse' | FileCheck %s

// tt.trans and tt.reshape only relabel coordinates when their operand has the layout
// inferred from their result (or the converse). The loaded tile's layout flows through
// the transpose as the transposed blocked layout, the make_range feeding the reshape is
// recomputed in the linear layout that makes the reshape free, and the one convert left
// is the transpose's real data movement, before the store.
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[LIN:linear[0-9]*]] = #ttg.linear<{register = [[32], [64], [16]], lane = [[128], [256], [512], [1], [2]], warp = [[4], [8]], block = []}>
// CHECK-LABEL: tt.func public @k
// CHECK: %[[R:.*]] = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #[[LIN]]>
// CHECK: tt.reshape %[[R]] {allow_reorder = false} : tensor<1024xi32, #[[LIN]]> -> tensor<32x32xi32, #[[COLS]]>
// CHECK: %[[X:.*]] = tt.load %{{.*}} : tensor<32x32x!tt.ptr<f32>, #[[ROWS]]>
// CHECK: %[[T:.*]] = tt.trans %[[X]] {order = array<i32: 1, 0>} : tensor<32x32xf32, #[[ROWS]]> -> tensor<32x32xf32, #[[COLS]]>
// CHECK: %[[S:.*]] = arith.addf %[[T]], %{{.*}} : tensor<32x32xf32, #[[COLS]]>
// CHECK: %[[C:.*]] = ttg.convert_layout %[[S]] : tensor<32x32xf32, #[[COLS]]> -> tensor<32x32xf32, #[[ROWS]]>
// CHECK: tt.store %{{.*}}, %[[C]] : tensor<32x32x!tt.ptr<f32>, #[[ROWS]]>
// CHECK-NOT: ttg.convert_layout
module {
  tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<32x1xi32>
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %1 = tt.reshape %0 {allow_reorder = false} : tensor<1024xi32> -> tensor<32x32xi32>
    %2 = arith.sitofp %1 : tensor<32x32xi32> to tensor<32x32xf32>
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %4 = tt.expand_dims %3 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %5 = arith.muli %4, %cst : tensor<32x1xi32>
    %6 = tt.expand_dims %3 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %7 = tt.broadcast %5 : tensor<32x1xi32> -> tensor<32x32xi32>
    %8 = tt.broadcast %6 : tensor<1x32xi32> -> tensor<32x32xi32>
    %9 = arith.addi %7, %8 : tensor<32x32xi32>
    %10 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %11 = tt.addptr %10, %9 : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %12 = tt.load %11 : tensor<32x32x!tt.ptr<f32>>
    %13 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %14 = tt.addptr %13, %9 : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %15 = tt.trans %12 {order = array<i32: 1, 0>} : tensor<32x32xf32> -> tensor<32x32xf32>
    %16 = arith.addf %15, %2 : tensor<32x32xf32>
    tt.store %14, %16 : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
