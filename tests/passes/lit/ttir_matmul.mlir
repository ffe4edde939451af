// RUN: inline,canonicalize,combine,reorder-broadcast,cse,symbol-dce,loop-unroll --verify-each
// RUN: inline,canonicalize,combine,reorder-broadcast,cse,symbol-dce,loop-unroll,licm --check-prefix=LICM
// The blocked matmul of examples/matmul.py (32x32x32 tiles, fp16 in, fp32 accumulate) as
// the frontend emits it, through the make_ttir pipeline (and LICM after it).

// CHECK-LABEL: tt.func public @matmul_kernel
// CHECK-NOT: tt.call
// cdiv(M, 32) inlined: (M + 31) / 32.
// CHECK-DAG: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
// CHECK-DAG: %[[ZERO16:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
// CHECK: %[[M31:.*]] = arith.addi %arg3, %[[C31]] : i32
// CHECK-NEXT: %[[NPM:.*]] = arith.divsi %[[M31]], %[[C32]] : i32
// One make_range for all three `tl.arange(0, 32)` after CSE.
// CHECK: %[[R:.*]] = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK-NOT: tt.make_range
// CHECK: %[[RK:.*]] = tt.expand_dims %[[R]] {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[ACC0]], %[[PA:[^ ]*]] = %{{.*}}, %[[PB:[^ ]*]] = %{{.*}})
// The loop-invariant expand_dims was CSE'd with the one outside the loop.
// CHECK-NOT: tt.expand_dims %[[R]] {axis = 0
// CHECK: %[[KK:.*]] = arith.muli %[[K]], %[[C32]] : i32
// CHECK-NEXT: %[[REM:.*]] = arith.subi %arg5, %[[KK]] : i32
// The mask is compared on the 1x32 row and broadcast afterwards.
// CHECK-NEXT: %[[REMS:.*]] = tt.splat %[[REM]] : i32 -> tensor<1x32xi32>
// CHECK-NEXT: %[[CMP:.*]] = arith.cmpi slt, %[[RK]], %[[REMS]] : tensor<1x32xi32>
// CHECK-NEXT: %[[MASK:.*]] = tt.broadcast %[[CMP]] : tensor<1x32xi1> -> tensor<32x32xi1>
// The `other` of 0.0 cast to f16 folded to a constant.
// CHECK-NEXT: %[[A:.*]] = tt.load %[[PA]], %[[MASK]], %[[ZERO16]] : tensor<32x32x!tt.ptr<f16>>
// CHECK: %[[B:.*]] = tt.load %[[PB]], %{{.*}}, %[[ZERO16]] : tensor<32x32x!tt.ptr<f16>>
// CHECK-NEXT: %[[D:.*]] = tt.dot %[[A]], %[[B]], %[[ACC]]
// CHECK: scf.yield %[[D]]
// CHECK: arith.truncf %[[LOOP]]#0 : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: tt.store
// CHECK-NOT: tt.func

// After LICM the stride products leave the loop.
// LICM-LABEL: tt.func public @matmul_kernel
// LICM: %[[SA:.*]] = arith.muli %arg7, %{{.*}} : i32
// LICM-NEXT: %[[SAS:.*]] = tt.splat %[[SA]] : i32 -> tensor<32x32xi32>
// LICM-NEXT: %[[SB:.*]] = arith.muli %arg8, %{{.*}} : i32
// LICM-NEXT: %[[SBS:.*]] = tt.splat %[[SB]] : i32 -> tensor<32x32xi32>
// LICM-NEXT: scf.for
// LICM-NOT: arith.muli %arg7
// LICM: tt.addptr %{{.*}}, %[[SAS]]
// LICM: tt.addptr %{{.*}}, %[[SBS]]
// LICM-NEXT: scf.yield
module {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %1 = tt.call @cdiv__i32__1c32(%arg3) : (i32) -> i32
    %2 = tt.call @cdiv__i32__1c32(%arg4) : (i32) -> i32
    %c8_i32 = arith.constant 8 : i32
    %3 = arith.muli %c8_i32, %2 : i32
    %4 = arith.divsi %0, %3 : i32
    %c8_i32_0 = arith.constant 8 : i32
    %5 = arith.muli %4, %c8_i32_0 : i32
    %6 = arith.subi %1, %5 : i32
    %c8_i32_1 = arith.constant 8 : i32
    %7 = arith.minsi %6, %c8_i32_1 : i32
    %8 = arith.remsi %0, %3 : i32
    %9 = arith.remsi %8, %7 : i32
    %10 = arith.addi %5, %9 : i32
    %11 = arith.remsi %0, %3 : i32
    %12 = arith.divsi %11, %7 : i32
    %c32_i32 = arith.constant 32 : i32
    %13 = arith.muli %10, %c32_i32 : i32
    %14 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %15 = tt.splat %13 : i32 -> tensor<32xi32>
    %16 = arith.addi %15, %14 : tensor<32xi32>
    %17 = tt.splat %arg3 : i32 -> tensor<32xi32>
    %18 = arith.remsi %16, %17 : tensor<32xi32>
    %c32_i32_0 = arith.constant 32 : i32
    %19 = arith.muli %12, %c32_i32_0 : i32
    %20 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %21 = tt.splat %19 : i32 -> tensor<32xi32>
    %22 = arith.addi %21, %20 : tensor<32xi32>
    %23 = tt.splat %arg4 : i32 -> tensor<32xi32>
    %24 = arith.remsi %22, %23 : tensor<32xi32>
    %25 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %26 = tt.expand_dims %18 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %27 = tt.splat %arg6 : i32 -> tensor<32x1xi32>
    %28 = arith.muli %26, %27 : tensor<32x1xi32>
    %29 = tt.expand_dims %25 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %30 = tt.splat %arg7 : i32 -> tensor<1x32xi32>
    %31 = arith.muli %29, %30 : tensor<1x32xi32>
    %32 = tt.broadcast %28 : tensor<32x1xi32> -> tensor<32x32xi32>
    %33 = tt.broadcast %31 : tensor<1x32xi32> -> tensor<32x32xi32>
    %34 = arith.addi %32, %33 : tensor<32x32xi32>
    %35 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %36 = tt.addptr %35, %34 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %37 = tt.expand_dims %25 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %38 = tt.splat %arg8 : i32 -> tensor<32x1xi32>
    %39 = arith.muli %37, %38 : tensor<32x1xi32>
    %40 = tt.expand_dims %24 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %41 = tt.splat %arg9 : i32 -> tensor<1x32xi32>
    %42 = arith.muli %40, %41 : tensor<1x32xi32>
    %43 = tt.broadcast %39 : tensor<32x1xi32> -> tensor<32x32xi32>
    %44 = tt.broadcast %42 : tensor<1x32xi32> -> tensor<32x32xi32>
    %45 = arith.addi %43, %44 : tensor<32x32xi32>
    %46 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %47 = tt.addptr %46, %45 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %48 = tt.splat %cst : f32 -> tensor<32x32xf32>
    %49 = tt.call @cdiv__i32__1c32(%arg5) : (i32) -> i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %50:3 = scf.for %arg12 = %c0_i32 to %49 step %c1_i32 iter_args(%arg13 = %48, %arg14 = %36, %arg15 = %47) -> (tensor<32x32xf32>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>) : i32 {
      %51 = tt.expand_dims %25 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %c32_i32_1 = arith.constant 32 : i32
      %52 = arith.muli %arg12, %c32_i32_1 : i32
      %53 = arith.subi %arg5, %52 : i32
      %54 = tt.splat %53 : i32 -> tensor<1x32xi32>
      %55 = arith.cmpi slt, %51, %54 : tensor<1x32xi32>
      %cst_0 = arith.constant 0.000000e+00 : f32
      %56 = tt.broadcast %55 : tensor<1x32xi1> -> tensor<32x32xi1>
      %57 = tt.splat %cst_0 : f32 -> tensor<32x32xf32>
      %58 = arith.truncf %57 : tensor<32x32xf32> to tensor<32x32xf16>
      %59 = tt.load %arg14, %56, %58 : tensor<32x32x!tt.ptr<f16>>
      %60 = tt.expand_dims %25 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %c32_i32_2 = arith.constant 32 : i32
      %61 = arith.muli %arg12, %c32_i32_2 : i32
      %62 = arith.subi %arg5, %61 : i32
      %63 = tt.splat %62 : i32 -> tensor<32x1xi32>
      %64 = arith.cmpi slt, %60, %63 : tensor<32x1xi32>
      %cst_1 = arith.constant 0.000000e+00 : f32
      %65 = tt.broadcast %64 : tensor<32x1xi1> -> tensor<32x32xi1>
      %66 = tt.splat %cst_1 : f32 -> tensor<32x32xf32>
      %67 = arith.truncf %66 : tensor<32x32xf32> to tensor<32x32xf16>
      %68 = tt.load %arg15, %65, %67 : tensor<32x32x!tt.ptr<f16>>
      %69 = tt.dot %59, %68, %arg13, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      %c32_i32_3 = arith.constant 32 : i32
      %70 = arith.muli %c32_i32_3, %arg7 : i32
      %71 = tt.splat %70 : i32 -> tensor<32x32xi32>
      %72 = tt.addptr %arg14, %71 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %c32_i32_4 = arith.constant 32 : i32
      %73 = arith.muli %c32_i32_4, %arg8 : i32
      %74 = tt.splat %73 : i32 -> tensor<32x32xi32>
      %75 = tt.addptr %arg15, %74 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      scf.yield %69, %72, %75 : tensor<32x32xf32>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>
    }
    %76 = arith.truncf %50#0 : tensor<32x32xf32> to tensor<32x32xf16>
    %c32_i32_5 = arith.constant 32 : i32
    %77 = arith.muli %10, %c32_i32_5 : i32
    %78 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %79 = tt.splat %77 : i32 -> tensor<32xi32>
    %80 = arith.addi %79, %78 : tensor<32xi32>
    %c32_i32_6 = arith.constant 32 : i32
    %81 = arith.muli %12, %c32_i32_6 : i32
    %82 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %83 = tt.splat %81 : i32 -> tensor<32xi32>
    %84 = arith.addi %83, %82 : tensor<32xi32>
    %85 = tt.expand_dims %80 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %86 = tt.splat %arg10 : i32 -> tensor<32x1xi32>
    %87 = arith.muli %86, %85 : tensor<32x1xi32>
    %88 = tt.splat %arg2 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
    %89 = tt.addptr %88, %87 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
    %90 = tt.expand_dims %84 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %91 = tt.splat %arg11 : i32 -> tensor<1x32xi32>
    %92 = arith.muli %91, %90 : tensor<1x32xi32>
    %93 = tt.broadcast %89 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
    %94 = tt.broadcast %92 : tensor<1x32xi32> -> tensor<32x32xi32>
    %95 = tt.addptr %93, %94 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %96 = tt.expand_dims %80 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %97 = tt.splat %arg3 : i32 -> tensor<32x1xi32>
    %98 = arith.cmpi slt, %96, %97 : tensor<32x1xi32>
    %99 = tt.expand_dims %84 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %100 = tt.splat %arg4 : i32 -> tensor<1x32xi32>
    %101 = arith.cmpi slt, %99, %100 : tensor<1x32xi32>
    %102 = tt.broadcast %98 : tensor<32x1xi1> -> tensor<32x32xi1>
    %103 = tt.broadcast %101 : tensor<1x32xi1> -> tensor<32x32xi1>
    %104 = arith.andi %102, %103 : tensor<32x32xi1>
    tt.store %95, %76, %104 : tensor<32x32x!tt.ptr<f16>>
    tt.return
  }
  tt.func private @cdiv__i32__1c32(%arg0: i32) -> i32 attributes {noinline = false} {
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg0, %c32_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %1 = arith.subi %0, %c1_i32 : i32
    %c32_i32_0 = arith.constant 32 : i32
    %2 = arith.divsi %1, %c32_i32_0 : i32
    tt.return %2 : i32
  }
}
