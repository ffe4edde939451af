// RUN: inline,canonicalize,combine,reorder-broadcast,cse,symbol-dce,loop-unroll --verify-each
// The fused-softmax kernel as the frontend emits it (examples/fused_softmax.py,
// BLOCK_SIZE=1024), through the make_ttir pipeline: the tl.max/tl.sum helpers are
// inlined into their reductions, the splat of -inf becomes a dense constant, and every
// helper function is gone.

// CHECK-LABEL: tt.func public @softmax_kernel
// CHECK-DAG: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK-DAG: %[[PID:.*]] = tt.get_program_id x : i32
// CHECK: %[[RANGE:.*]] = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[RANGE]], %{{.*}} : tensor<1024xi32>
// CHECK: %[[ROW:.*]] = tt.load %{{.*}}, %[[MASK]], %[[NINF]] : tensor<1024x!tt.ptr<f32>>
// CHECK-NEXT: %[[MAX:.*]] = "tt.reduce"(%[[ROW]]) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maxnumf %[[A]], %[[B]] : f32
// CHECK-NEXT: tt.reduce.return %[[M]] : f32
// CHECK-NEXT: }) {axis = 0 : i32} : (tensor<1024xf32>) -> f32
// CHECK-NEXT: %[[MAXS:.*]] = tt.splat %[[MAX]] : f32 -> tensor<1024xf32>
// CHECK-NEXT: %[[SUB:.*]] = arith.subf %[[ROW]], %[[MAXS]] : tensor<1024xf32>
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[SUB]] : tensor<1024xf32>
// CHECK-NEXT: %[[SUM:.*]] = "tt.reduce"(%[[EXP]])
// CHECK: arith.addf
// CHECK: %[[SUMS:.*]] = tt.splat %[[SUM]] : f32 -> tensor<1024xf32>
// CHECK-NEXT: %[[OUT:.*]] = arith.divf %[[EXP]], %[[SUMS]] : tensor<1024xf32>
// The same make_range serves the load and the store after CSE.
// CHECK: tt.addptr %{{.*}}, %[[RANGE]]
// CHECK-NEXT: tt.store %{{.*}}, %[[OUT]], %[[MASK]] : tensor<1024x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
// CHECK-NOT: tt.call
// CHECK-NOT: tt.func
module {
  tt.func public @softmax_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32, %arg4: i32) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %arg2 : i32
    %2 = tt.addptr %arg1, %1 : !tt.ptr<f32>, i32
    %3 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %4 = tt.splat %arg4 : i32 -> tensor<1024xi32>
    %5 = arith.cmpi slt, %3, %4 : tensor<1024xi32>
    %6 = tt.splat %2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %7 = tt.addptr %6, %3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %cst = arith.constant 0xFF800000 : f32
    %8 = tt.splat %cst : f32 -> tensor<1024xf32>
    %9 = tt.load %7, %5, %8 : tensor<1024x!tt.ptr<f32>>
    %10 = tt.call @max__fp32S1024S__1c0_2cFalse_3cTrue_4cFalse(%9) : (tensor<1024xf32>) -> f32
    %11 = tt.splat %10 : f32 -> tensor<1024xf32>
    %12 = arith.subf %9, %11 : tensor<1024xf32>
    %13 = math.exp %12 : tensor<1024xf32>
    %14 = tt.call @sum__fp32S1024S__1c0_2cFalse_3cNone(%13) : (tensor<1024xf32>) -> f32
    %15 = tt.splat %14 : f32 -> tensor<1024xf32>
    %16 = arith.divf %13, %15 : tensor<1024xf32>
    %17 = arith.muli %0, %arg3 : i32
    %18 = tt.addptr %arg0, %17 : !tt.ptr<f32>, i32
    %19 = tt.splat %18 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %20 = tt.addptr %19, %3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    tt.store %20, %16, %5 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
  tt.func private @max__fp32S1024S__1c0_2cFalse_3cTrue_4cFalse(%arg0: tensor<1024xf32>) -> f32 attributes {noinline = false} {
    %0 = "tt.reduce"(%arg0) ({
      ^bb0(%arg1: f32, %arg2: f32):
        %1 = tt.call @_elementwise_max__fp32_fp32__(%arg1, %arg2) : (f32, f32) -> f32
        tt.reduce.return %1 : f32
    }) {axis = 0 : i32} : (tensor<1024xf32>) -> f32
    tt.return %0 : f32
  }
  tt.func private @_elementwise_max__fp32_fp32__(%arg0: f32, %arg1: f32) -> f32 attributes {noinline = false} {
    %0 = arith.maxnumf %arg0, %arg1 : f32
    tt.return %0 : f32
  }
  tt.func private @sum__fp32S1024S__1c0_2cFalse_3cNone(%arg0: tensor<1024xf32>) -> f32 attributes {noinline = false} {
    %0 = "tt.reduce"(%arg0) ({
      ^bb0(%arg1: f32, %arg2: f32):
        %1 = tt.call @_sum_combine__fp32_fp32__(%arg1, %arg2) : (f32, f32) -> f32
        tt.reduce.return %1 : f32
    }) {axis = 0 : i32} : (tensor<1024xf32>) -> f32
    tt.return %0 : f32
  }
  tt.func private @_sum_combine__fp32_fp32__(%arg0: f32, %arg1: f32) -> f32 attributes {noinline = false} {
    %0 = arith.addf %arg0, %arg1 : f32
    tt.return %0 : f32
  }
}
