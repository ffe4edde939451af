// RUN: tritium-opt %s -p 'convert-triton-to-tritongpu{num-warps=4},tritongpu-coalesce,tritongpu-remove-layout-conversions,canonicalize,cse,tritongpu-remove-layout-conversions,canonicalize,cse,symbol-dce,allocate-shared-memory' --split-input-file | FileCheck %s
// The make_ttgir pipeline (tritium.gpu.pipeline) on TTIR the frontend produced.

// Vector add, fp32, every pointer and n specialised as multiples of 16.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-NEXT: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.shared = 0 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
// CHECK-NEXT: tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
// CHECK-NEXT:   %c1024_i32 = arith.constant 1024 : i32
// CHECK-NEXT:   %0 = tt.get_program_id x : i32
// CHECK-NEXT:   %1 = arith.muli %0, %c1024_i32 : i32
// CHECK-NEXT:   %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
// CHECK-NEXT:   %3 = tt.splat %1 : i32 -> tensor<1024xi32, #blocked>
// CHECK-NEXT:   %4 = arith.addi %3, %2 : tensor<1024xi32, #blocked>
// CHECK-NEXT:   %5 = tt.splat %arg3 : i32 -> tensor<1024xi32, #blocked>
// CHECK-NEXT:   %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32, #blocked>
// CHECK-NEXT:   %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
// CHECK-NEXT:   %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
// CHECK-NEXT:   %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   %13 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   %14 = tt.addptr %13, %4 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
// CHECK-NEXT:   %15 = arith.addf %9, %12 : tensor<1024xf32, #blocked>
// CHECK-NEXT:   tt.store %14, %15, %6 : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT:   tt.return
// CHECK-NEXT: }
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

// Row softmax over a 4x1024 tile (rows[:, None] * stride + cols[None, :]): the row max
// and sum live in slices of the tile's layout and come back through expand_dims and
// broadcast without a single conversion; the cross-warp reductions need 64 bytes.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK: ttg.shared = 64 : i32
// CHECK-LABEL: tt.func public @softmax2d
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[X:.*]] = tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1024x!tt.ptr<f32>, #blocked>
// CHECK: %[[MAX:.*]] = "tt.reduce"(%[[X]])
// CHECK: {allocation.offset = 0 : i32, axis = 1 : i32} : (tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #{{.*}}slice{{.*}}>
// CHECK: %[[E:.*]] = tt.expand_dims %[[MAX]] {axis = 1 : i32} : tensor<4xf32, #{{.*}}slice{{.*}}> -> tensor<4x1xf32, #blocked>
// CHECK: %[[B:.*]] = tt.broadcast %[[E]] : tensor<4x1xf32, #blocked> -> tensor<4x1024xf32, #blocked>
// CHECK: arith.subf %[[X]], %[[B]] : tensor<4x1024xf32, #blocked>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1024x!tt.ptr<f32>, #blocked>
// CHECK-NOT: ttg.convert_layout
module {
  tt.func public @softmax2d(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: i32 {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}) {
    %c4_i32 = arith.constant 4 : i32
    %cst = arith.constant dense<0xFF800000> : tensor<4x1024xf32>
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c4_i32 : i32
    %2 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %3 = tt.splat %1 : i32 -> tensor<4xi32>
    %4 = arith.addi %3, %2 : tensor<4xi32>
    %5 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %6 = tt.expand_dims %4 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %7 = tt.splat %arg2 : i32 -> tensor<4x1xi32>
    %8 = arith.muli %6, %7 : tensor<4x1xi32>
    %9 = tt.expand_dims %5 {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
    %10 = tt.broadcast %8 : tensor<4x1xi32> -> tensor<4x1024xi32>
    %11 = tt.broadcast %9 : tensor<1x1024xi32> -> tensor<4x1024xi32>
    %12 = arith.addi %10, %11 : tensor<4x1024xi32>
    %13 = tt.splat %arg3 : i32 -> tensor<4x1xi32>
    %14 = arith.cmpi slt, %6, %13 : tensor<4x1xi32>
    %15 = tt.splat %arg4 : i32 -> tensor<1x1024xi32>
    %16 = arith.cmpi slt, %9, %15 : tensor<1x1024xi32>
    %17 = tt.broadcast %14 : tensor<4x1xi1> -> tensor<4x1024xi1>
    %18 = tt.broadcast %16 : tensor<1x1024xi1> -> tensor<4x1024xi1>
    %19 = arith.andi %17, %18 : tensor<4x1024xi1>
    %20 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<4x1024x!tt.ptr<f32>>
    %21 = tt.addptr %20, %12 : tensor<4x1024x!tt.ptr<f32>>, tensor<4x1024xi32>
    %22 = tt.load %21, %19, %cst : tensor<4x1024x!tt.ptr<f32>>
    %23 = "tt.reduce"(%22) ({
      ^bb0(%arg5: f32, %arg6: f32):
        %24 = arith.maxnumf %arg5, %arg6 : f32
        tt.reduce.return %24 : f32
    }) {axis = 1 : i32} : (tensor<4x1024xf32>) -> tensor<4xf32>
    %25 = tt.expand_dims %23 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %26 = tt.broadcast %25 : tensor<4x1xf32> -> tensor<4x1024xf32>
    %27 = arith.subf %22, %26 : tensor<4x1024xf32>
    %28 = math.exp %27 : tensor<4x1024xf32>
    %29 = "tt.reduce"(%28) ({
      ^bb0(%arg7: f32, %arg8: f32):
        %30 = arith.addf %arg7, %arg8 : f32
        tt.reduce.return %30 : f32
    }) {axis = 1 : i32} : (tensor<4x1024xf32>) -> tensor<4xf32>
    %31 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x1024x!tt.ptr<f32>>
    %32 = tt.addptr %31, %12 : tensor<4x1024x!tt.ptr<f32>>, tensor<4x1024xi32>
    %33 = tt.expand_dims %29 {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
    %34 = tt.broadcast %33 : tensor<4x1xf32> -> tensor<4x1024xf32>
    %35 = arith.divf %28, %34 : tensor<4x1024xf32>
    tt.store %32, %35, %19 : tensor<4x1024x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// Layer norm: three loops over the row; both loop-carried accumulators take the loads'
// 4-wide layout, and the zero init with them.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: ttg.shared = 16 : i32
// CHECK-LABEL: tt.func public @_layer_norm_fwd_fused
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (tensor<1024xf32, #blocked>)
// CHECK: tt.load %{{.*}}, %{{.*}}, %[[Z]] : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (tensor<1024xf32, #blocked>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[Z]] : tensor<1024xi1, #blocked>, tensor<1024xf32, #blocked>
// CHECK: scf.for
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NOT: ttg.convert_layout
module {
  tt.func public @_layer_norm_fwd_fused(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg5: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: f32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1024_i32 = arith.constant 1024 : i32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %arg6 : i32
    %2 = tt.addptr %arg1, %1 : !tt.ptr<f32>, i32
    %3 = tt.addptr %arg0, %1 : !tt.ptr<f32>, i32
    %4 = scf.for %arg9 = %c0_i32 to %arg7 step %c1024_i32 iter_args(%arg10 = %cst) -> (tensor<1024xf32>) : i32 {
      %5 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
      %6 = tt.splat %arg9 : i32 -> tensor<1024xi32>
      %7 = arith.addi %6, %5 : tensor<1024xi32>
      %8 = tt.splat %arg7 : i32 -> tensor<1024xi32>
      %9 = arith.cmpi slt, %7, %8 : tensor<1024xi32>
      %10 = tt.splat %3 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %11 = tt.addptr %10, %7 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      %12 = tt.load %11, %9, %cst : tensor<1024x!tt.ptr<f32>>
      %13 = arith.addf %arg10, %12 : tensor<1024xf32>
      scf.yield %13 : tensor<1024xf32>
    }
    %14 = "tt.reduce"(%4) ({
      ^bb0(%arg11: f32, %arg12: f32):
        %15 = arith.addf %arg11, %arg12 : f32
        tt.reduce.return %15 : f32
    }) {axis = 0 : i32} : (tensor<1024xf32>) -> f32
    %16 = arith.sitofp %arg7 : i32 to f32
    %17 = arith.divf %14, %16 : f32
    %18 = scf.for %arg13 = %c0_i32 to %arg7 step %c1024_i32 iter_args(%arg14 = %cst) -> (tensor<1024xf32>) : i32 {
      %19 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
      %20 = tt.splat %arg13 : i32 -> tensor<1024xi32>
      %21 = arith.addi %20, %19 : tensor<1024xi32>
      %22 = tt.splat %arg7 : i32 -> tensor<1024xi32>
      %23 = arith.cmpi slt, %21, %22 : tensor<1024xi32>
      %24 = tt.splat %3 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %25 = tt.addptr %24, %21 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      %26 = tt.load %25, %23, %cst : tensor<1024x!tt.ptr<f32>>
      %27 = tt.splat %17 : f32 -> tensor<1024xf32>
      %28 = arith.subf %26, %27 : tensor<1024xf32>
      %29 = arith.select %23, %28, %cst : tensor<1024xi1>, tensor<1024xf32>
      %30 = arith.mulf %29, %29 : tensor<1024xf32>
      %31 = arith.addf %arg14, %30 : tensor<1024xf32>
      scf.yield %31 : tensor<1024xf32>
    }
    %32 = "tt.reduce"(%18) ({
      ^bb0(%arg15: f32, %arg16: f32):
        %33 = arith.addf %arg15, %arg16 : f32
        tt.reduce.return %33 : f32
    }) {axis = 0 : i32} : (tensor<1024xf32>) -> f32
    %34 = arith.divf %32, %16 : f32
    %35 = arith.addf %34, %arg8 : f32
    %36 = math.sqrt %35 : f32
    %37 = arith.divf %cst_0, %36 : f32
    %38 = tt.addptr %arg4, %0 : !tt.ptr<f32>, i32
    tt.store %38, %17 : !tt.ptr<f32>
    %39 = tt.addptr %arg5, %0 : !tt.ptr<f32>, i32
    tt.store %39, %37 : !tt.ptr<f32>
    scf.for %arg17 = %c0_i32 to %arg7 step %c1024_i32 : i32 {
      %40 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
      %41 = tt.splat %arg17 : i32 -> tensor<1024xi32>
      %42 = arith.addi %41, %40 : tensor<1024xi32>
      %43 = tt.splat %arg7 : i32 -> tensor<1024xi32>
      %44 = arith.cmpi slt, %42, %43 : tensor<1024xi32>
      %45 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %46 = tt.addptr %45, %42 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      %47 = tt.load %46, %44 : tensor<1024x!tt.ptr<f32>>
      %48 = tt.splat %arg3 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %49 = tt.addptr %48, %42 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      %50 = tt.load %49, %44 : tensor<1024x!tt.ptr<f32>>
      %51 = tt.splat %3 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %52 = tt.addptr %51, %42 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      %53 = tt.load %52, %44, %cst : tensor<1024x!tt.ptr<f32>>
      %54 = tt.splat %17 : f32 -> tensor<1024xf32>
      %55 = arith.subf %53, %54 : tensor<1024xf32>
      %56 = tt.splat %37 : f32 -> tensor<1024xf32>
      %57 = arith.mulf %55, %56 : tensor<1024xf32>
      %58 = arith.mulf %57, %47 : tensor<1024xf32>
      %59 = arith.addf %58, %50 : tensor<1024xf32>
      %60 = tt.splat %2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
      %61 = tt.addptr %60, %42 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
      tt.store %61, %59, %44 : tensor<1024x!tt.ptr<f32>>
      scf.yield
    }
    tt.return
  }
}

// -----

// Dropout: the philox rounds are a long chain of integer ops on the offsets; all of it is
// computed in the load's layout.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-NOT: #blocked1
// CHECK-LABEL: tt.func public @_seeded_dropout
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.mulhiui"(%{{.*}}, %{{.*}}) : (tensor<1024xi32, #blocked>, tensor<1024xi32, #blocked>) -> tensor<1024xi32, #blocked>
// CHECK: arith.sitofp %{{.*}} : tensor<1024xi32, #blocked> to tensor<1024xf32, #blocked>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024xi1, #blocked>, tensor<1024xf32, #blocked>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NOT: ttg.convert_layout
module {
  tt.func public @_seeded_dropout(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: i32 {tt.divisibility = 16 : i32}, %arg3: f32, %arg4: i32) {
    %c1024_i32 = arith.constant 1024 : i32
    %cst = arith.constant dense<0> : tensor<1024xi32>
    %c32_i64 = arith.constant 32 : i64
    %c4294967295_i64 = arith.constant 4294967295 : i64
    %cst_0 = arith.constant dense<-845247145> : tensor<1024xi32>
    %cst_1 = arith.constant dense<-766435501> : tensor<1024xi32>
    %c_1640531527_i32 = arith.constant -1640531527 : i32
    %c_1150833019_i32 = arith.constant -1150833019 : i32
    %cst_2 = arith.constant dense<1> : tensor<1024xi32>
    %cst_3 = arith.constant dense<4.6566127342e-10> : tensor<1024xf32>
    %cst_4 = arith.constant 1.000000e+00 : f32
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<1024xf32>
    %c1013904242_i32 = arith.constant 1013904242 : i32
    %c1993301258_i32 = arith.constant 1993301258 : i32
    %c_626627285_i32 = arith.constant -626627285 : i32
    %c842468239_i32 = arith.constant 842468239 : i32
    %c2027808484_i32 = arith.constant 2027808484 : i32
    %c_308364780_i32 = arith.constant -308364780 : i32
    %c387276957_i32 = arith.constant 387276957 : i32
    %c_1459197799_i32 = arith.constant -1459197799 : i32
    %c_1253254570_i32 = arith.constant -1253254570 : i32
    %c1684936478_i32 = arith.constant 1684936478 : i32
    %c1401181199_i32 = arith.constant 1401181199 : i32
    %c534103459_i32 = arith.constant 534103459 : i32
    %c_616729560_i32 = arith.constant -616729560 : i32
    %c_1879881855_i32 = arith.constant -1879881855 : i32
    %c_766435501_i32 = arith.constant -766435501 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>>
    %10 = arith.extsi %arg4 : i32 to i64
    %11 = arith.shrui %10, %c32_i64 : i64
    %12 = arith.andi %11, %c4294967295_i64 : i64
    %13 = arith.trunci %12 : i64 to i32
    %14 = arith.andi %10, %c4294967295_i64 : i64
    %15 = arith.trunci %14 : i64 to i32
    %16 = "tt.mulhiui"(%4, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %17 = tt.splat %13 : i32 -> tensor<1024xi32>
    %18 = arith.xori %16, %17 : tensor<1024xi32>
    %19 = arith.muli %4, %cst_1 : tensor<1024xi32>
    %20 = arith.addi %15, %c_1640531527_i32 : i32
    %21 = arith.addi %13, %c_1150833019_i32 : i32
    %22 = "tt.mulhiui"(%18, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %23 = tt.splat %20 : i32 -> tensor<1024xi32>
    %24 = arith.xori %22, %23 : tensor<1024xi32>
    %25 = "tt.mulhiui"(%15, %c_766435501_i32) : (i32, i32) -> i32
    %26 = tt.splat %25 : i32 -> tensor<1024xi32>
    %27 = arith.xori %26, %19 : tensor<1024xi32>
    %28 = tt.splat %21 : i32 -> tensor<1024xi32>
    %29 = arith.xori %27, %28 : tensor<1024xi32>
    %30 = arith.muli %18, %cst_0 : tensor<1024xi32>
    %31 = arith.muli %15, %c_766435501_i32 : i32
    %32 = tt.splat %31 : i32 -> tensor<1024xi32>
    %33 = arith.addi %15, %c1013904242_i32 : i32
    %34 = arith.addi %13, %c1993301258_i32 : i32
    %35 = "tt.mulhiui"(%29, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %36 = arith.xori %35, %30 : tensor<1024xi32>
    %37 = tt.splat %33 : i32 -> tensor<1024xi32>
    %38 = arith.xori %36, %37 : tensor<1024xi32>
    %39 = "tt.mulhiui"(%24, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %40 = arith.xori %39, %32 : tensor<1024xi32>
    %41 = tt.splat %34 : i32 -> tensor<1024xi32>
    %42 = arith.xori %40, %41 : tensor<1024xi32>
    %43 = arith.muli %29, %cst_0 : tensor<1024xi32>
    %44 = arith.muli %24, %cst_1 : tensor<1024xi32>
    %45 = arith.addi %15, %c_626627285_i32 : i32
    %46 = arith.addi %13, %c842468239_i32 : i32
    %47 = "tt.mulhiui"(%42, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %48 = arith.xori %47, %43 : tensor<1024xi32>
    %49 = tt.splat %45 : i32 -> tensor<1024xi32>
    %50 = arith.xori %48, %49 : tensor<1024xi32>
    %51 = "tt.mulhiui"(%38, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %52 = arith.xori %51, %44 : tensor<1024xi32>
    %53 = tt.splat %46 : i32 -> tensor<1024xi32>
    %54 = arith.xori %52, %53 : tensor<1024xi32>
    %55 = arith.muli %42, %cst_0 : tensor<1024xi32>
    %56 = arith.muli %38, %cst_1 : tensor<1024xi32>
    %57 = arith.addi %15, %c2027808484_i32 : i32
    %58 = arith.addi %13, %c_308364780_i32 : i32
    %59 = "tt.mulhiui"(%54, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %60 = arith.xori %59, %55 : tensor<1024xi32>
    %61 = tt.splat %57 : i32 -> tensor<1024xi32>
    %62 = arith.xori %60, %61 : tensor<1024xi32>
    %63 = "tt.mulhiui"(%50, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %64 = arith.xori %63, %56 : tensor<1024xi32>
    %65 = tt.splat %58 : i32 -> tensor<1024xi32>
    %66 = arith.xori %64, %65 : tensor<1024xi32>
    %67 = arith.muli %54, %cst_0 : tensor<1024xi32>
    %68 = arith.muli %50, %cst_1 : tensor<1024xi32>
    %69 = arith.addi %15, %c387276957_i32 : i32
    %70 = arith.addi %13, %c_1459197799_i32 : i32
    %71 = "tt.mulhiui"(%66, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %72 = arith.xori %71, %67 : tensor<1024xi32>
    %73 = tt.splat %69 : i32 -> tensor<1024xi32>
    %74 = arith.xori %72, %73 : tensor<1024xi32>
    %75 = "tt.mulhiui"(%62, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %76 = arith.xori %75, %68 : tensor<1024xi32>
    %77 = tt.splat %70 : i32 -> tensor<1024xi32>
    %78 = arith.xori %76, %77 : tensor<1024xi32>
    %79 = arith.muli %66, %cst_0 : tensor<1024xi32>
    %80 = arith.muli %62, %cst_1 : tensor<1024xi32>
    %81 = arith.addi %15, %c_1253254570_i32 : i32
    %82 = arith.addi %13, %c1684936478_i32 : i32
    %83 = "tt.mulhiui"(%78, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %84 = arith.xori %83, %79 : tensor<1024xi32>
    %85 = tt.splat %81 : i32 -> tensor<1024xi32>
    %86 = arith.xori %84, %85 : tensor<1024xi32>
    %87 = "tt.mulhiui"(%74, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %88 = arith.xori %87, %80 : tensor<1024xi32>
    %89 = tt.splat %82 : i32 -> tensor<1024xi32>
    %90 = arith.xori %88, %89 : tensor<1024xi32>
    %91 = arith.muli %78, %cst_0 : tensor<1024xi32>
    %92 = arith.muli %74, %cst_1 : tensor<1024xi32>
    %93 = arith.addi %15, %c1401181199_i32 : i32
    %94 = arith.addi %13, %c534103459_i32 : i32
    %95 = "tt.mulhiui"(%90, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %96 = arith.xori %95, %91 : tensor<1024xi32>
    %97 = tt.splat %93 : i32 -> tensor<1024xi32>
    %98 = arith.xori %96, %97 : tensor<1024xi32>
    %99 = "tt.mulhiui"(%86, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %100 = arith.xori %99, %92 : tensor<1024xi32>
    %101 = tt.splat %94 : i32 -> tensor<1024xi32>
    %102 = arith.xori %100, %101 : tensor<1024xi32>
    %103 = arith.muli %86, %cst_1 : tensor<1024xi32>
    %104 = arith.addi %13, %c_616729560_i32 : i32
    %105 = "tt.mulhiui"(%98, %cst_1) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %106 = arith.xori %105, %103 : tensor<1024xi32>
    %107 = tt.splat %104 : i32 -> tensor<1024xi32>
    %108 = arith.xori %106, %107 : tensor<1024xi32>
    %109 = arith.muli %102, %cst_0 : tensor<1024xi32>
    %110 = arith.addi %15, %c_1879881855_i32 : i32
    %111 = "tt.mulhiui"(%108, %cst_0) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %112 = arith.xori %111, %109 : tensor<1024xi32>
    %113 = tt.splat %110 : i32 -> tensor<1024xi32>
    %114 = arith.xori %112, %113 : tensor<1024xi32>
    %115 = arith.cmpi slt, %114, %cst : tensor<1024xi32>
    %116 = arith.subi %cst, %114 : tensor<1024xi32>
    %117 = arith.subi %116, %cst_2 : tensor<1024xi32>
    %118 = arith.select %115, %117, %114 : tensor<1024xi1>, tensor<1024xi32>
    %119 = arith.sitofp %118 : tensor<1024xi32> to tensor<1024xf32>
    %120 = arith.mulf %119, %cst_3 : tensor<1024xf32>
    %121 = tt.splat %arg3 : f32 -> tensor<1024xf32>
    %122 = arith.cmpf ogt, %120, %121 : tensor<1024xf32>
    %123 = arith.subf %cst_4, %arg3 : f32
    %124 = tt.splat %123 : f32 -> tensor<1024xf32>
    %125 = arith.divf %9, %124 : tensor<1024xf32>
    %126 = arith.select %122, %125, %cst_5 : tensor<1024xi1>, tensor<1024xf32>
    %127 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %128 = tt.addptr %127, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %128, %126, %6 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// A masked 64x64 fp16 tile: 8 halves (16 bytes) per thread along the rows.
// CHECK: #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tt.func public @copy2d
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.load %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f16>, #blocked>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f16>, #blocked>
module {
  tt.func public @copy2d(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: i32 {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}) {
    %c64_i32 = arith.constant 64 : i32
    %cst = arith.constant dense<2.000000e+00> : tensor<64x64xf16>
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %3 = tt.splat %1 : i32 -> tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = tt.get_program_id y : i32
    %6 = arith.muli %5, %c64_i32 : i32
    %7 = tt.splat %6 : i32 -> tensor<64xi32>
    %8 = arith.addi %7, %2 : tensor<64xi32>
    %9 = tt.expand_dims %4 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %10 = tt.splat %arg2 : i32 -> tensor<64x1xi32>
    %11 = arith.cmpi slt, %9, %10 : tensor<64x1xi32>
    %12 = tt.expand_dims %8 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %13 = tt.splat %arg3 : i32 -> tensor<1x64xi32>
    %14 = arith.cmpi slt, %12, %13 : tensor<1x64xi32>
    %15 = tt.broadcast %11 : tensor<64x1xi1> -> tensor<64x64xi1>
    %16 = tt.broadcast %14 : tensor<1x64xi1> -> tensor<64x64xi1>
    %17 = arith.andi %15, %16 : tensor<64x64xi1>
    %18 = tt.splat %arg4 : i32 -> tensor<64x1xi32>
    %19 = arith.muli %9, %18 : tensor<64x1xi32>
    %20 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>>
    %21 = tt.addptr %20, %19 : tensor<64x1x!tt.ptr<f16>>, tensor<64x1xi32>
    %22 = tt.broadcast %21 : tensor<64x1x!tt.ptr<f16>> -> tensor<64x64x!tt.ptr<f16>>
    %23 = tt.broadcast %12 : tensor<1x64xi32> -> tensor<64x64xi32>
    %24 = tt.addptr %22, %23 : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %25 = tt.load %24, %17 : tensor<64x64x!tt.ptr<f16>>
    %26 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>>
    %27 = tt.addptr %26, %19 : tensor<64x1x!tt.ptr<f16>>, tensor<64x1xi32>
    %28 = tt.broadcast %27 : tensor<64x1x!tt.ptr<f16>> -> tensor<64x64x!tt.ptr<f16>>
    %29 = tt.addptr %28, %23 : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %30 = arith.mulf %25, %cst : tensor<64x64xf16>
    tt.store %29, %30, %17 : tensor<64x64x!tt.ptr<f16>>
    tt.return
  }
}
