// RUN: tritium-opt %s -p 'tritongpu-accelerate-matmul' --split-input-file | FileCheck %s

// fp16 128x128x64 with 4 warps on sm_90: wgmma. Both operands are staged in NVMMA shared
// layouts (128-byte swizzle: K-contiguous A, N-contiguous B), the accumulator is converted
// to the v3 layout around the dot.
// CHECK-DAG: #[[SH:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK: scf.for
// CHECK: %[[A:.*]] = "ttg.local_alloc"(%{{.*}}) : (tensor<128x64xf16, #{{.*}}>) -> !ttg.memdesc<128x64xf16, #[[SH]], #smem>
// CHECK: %[[B:.*]] = "ttg.local_alloc"(%{{.*}}) : (tensor<64x128xf16, #{{.*}}>) -> !ttg.memdesc<64x128xf16, #[[SH]], #smem>
// CHECK: %[[C:.*]] = ttg.convert_layout %{{.*}} : tensor<128x128xf32, #{{.*}}> -> tensor<128x128xf32, #[[MMA]]>
// CHECK: "ttng.warp_group_dot"(%[[A]], %[[B]], %[[C]]) {{.*}}isAsync = false
// CHECK-NOT: tt.dot
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}, %arg10: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x128xf16, #blocked2>
    %cst_2 = arith.constant dense<64> : tensor<128x64xi32, #blocked1>
    %c63_i32 = arith.constant 63 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %5 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %7 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %8 = arith.addi %6, %4 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %9 = arith.addi %7, %5 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %10 = arith.muli %1, %c128_i32 : i32
    %11 = tt.splat %10 : i32 -> tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %12 = arith.addi %11, %3 : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %13 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %14 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %15 = tt.expand_dims %8 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<128x1xi32, #blocked2>
    %16 = tt.expand_dims %9 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>
    %17 = tt.splat %arg7 : i32 -> tensor<128x1xi32, #blocked1>
    %18 = arith.muli %16, %17 : tensor<128x1xi32, #blocked1>
    %19 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked1>
    %20 = tt.addptr %19, %18 : tensor<128x1x!tt.ptr<f16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %21 = tt.expand_dims %14 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x64xi32, #blocked1>
    %22 = tt.broadcast %20 : tensor<128x1x!tt.ptr<f16>, #blocked1> -> tensor<128x64x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %21 : tensor<1x64xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<128x64x!tt.ptr<f16>, #blocked1>, tensor<128x64xi32, #blocked1>
    %25 = tt.expand_dims %13 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %26 = tt.splat %arg8 : i32 -> tensor<64x1xi32, #blocked2>
    %27 = arith.muli %25, %26 : tensor<64x1xi32, #blocked2>
    %28 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %29 = tt.addptr %28, %27 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %30 = tt.expand_dims %12 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x128xi32, #blocked2>
    %31 = tt.broadcast %29 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x128x!tt.ptr<f16>, #blocked2>
    %32 = tt.broadcast %30 : tensor<1x128xi32, #blocked2> -> tensor<64x128xi32, #blocked2>
    %33 = tt.addptr %31, %32 : tensor<64x128x!tt.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
    %34 = arith.addi %arg6, %c63_i32 : i32
    %35 = arith.divsi %34, %c64_i32 : i32
    %36:3 = scf.for %arg11 = %c0_i32 to %35 step %c1_i32 iter_args(%arg12 = %cst, %arg13 = %24, %arg14 = %33) -> (tensor<128x128xf32, #blocked>, tensor<128x64x!tt.ptr<f16>, #blocked1>, tensor<64x128x!tt.ptr<f16>, #blocked2>) : i32 {
      %37 = tt.splat %arg4 : i32 -> tensor<128x1xi32, #blocked1>
      %38 = arith.cmpi slt, %16, %37 : tensor<128x1xi32, #blocked1>
      %39 = arith.muli %arg11, %c64_i32 : i32
      %40 = arith.subi %arg6, %39 : i32
      %41 = tt.splat %40 : i32 -> tensor<1x64xi32, #blocked1>
      %42 = arith.cmpi slt, %21, %41 : tensor<1x64xi32, #blocked1>
      %43 = tt.broadcast %38 : tensor<128x1xi1, #blocked1> -> tensor<128x64xi1, #blocked1>
      %44 = tt.broadcast %42 : tensor<1x64xi1, #blocked1> -> tensor<128x64xi1, #blocked1>
      %45 = arith.andi %43, %44 : tensor<128x64xi1, #blocked1>
      %46 = tt.load %arg13, %45, %cst_0 : tensor<128x64x!tt.ptr<f16>, #blocked1>
      %47 = tt.splat %40 : i32 -> tensor<64x1xi32, #blocked2>
      %48 = arith.cmpi slt, %25, %47 : tensor<64x1xi32, #blocked2>
      %49 = tt.splat %arg5 : i32 -> tensor<1x128xi32, #blocked2>
      %50 = arith.cmpi slt, %30, %49 : tensor<1x128xi32, #blocked2>
      %51 = tt.broadcast %48 : tensor<64x1xi1, #blocked2> -> tensor<64x128xi1, #blocked2>
      %52 = tt.broadcast %50 : tensor<1x128xi1, #blocked2> -> tensor<64x128xi1, #blocked2>
      %53 = arith.andi %51, %52 : tensor<64x128xi1, #blocked2>
      %54 = tt.load %arg14, %53, %cst_1 : tensor<64x128x!tt.ptr<f16>, #blocked2>
      %55 = tt.dot %46, %54, %arg12, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked1> * tensor<64x128xf16, #blocked2> -> tensor<128x128xf32, #blocked>
      %56 = tt.addptr %arg13, %cst_2 : tensor<128x64x!tt.ptr<f16>, #blocked1>, tensor<128x64xi32, #blocked1>
      %57 = arith.muli %arg8, %c64_i32 : i32
      %58 = tt.splat %57 : i32 -> tensor<64x128xi32, #blocked2>
      %59 = tt.addptr %arg14, %58 : tensor<64x128x!tt.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
      scf.yield %55, %56, %59 : tensor<128x128xf32, #blocked>, tensor<128x64x!tt.ptr<f16>, #blocked1>, tensor<64x128x!tt.ptr<f16>, #blocked2>
    }
    %60 = tt.splat %arg4 : i32 -> tensor<128x1xi32, #blocked2>
    %61 = arith.cmpi slt, %15, %60 : tensor<128x1xi32, #blocked2>
    %62 = tt.splat %arg5 : i32 -> tensor<1x128xi32, #blocked2>
    %63 = arith.cmpi slt, %30, %62 : tensor<1x128xi32, #blocked2>
    %64 = tt.broadcast %61 : tensor<128x1xi1, #blocked2> -> tensor<128x128xi1, #blocked2>
    %65 = tt.broadcast %63 : tensor<1x128xi1, #blocked2> -> tensor<128x128xi1, #blocked2>
    %66 = arith.andi %64, %65 : tensor<128x128xi1, #blocked2>
    %67 = tt.splat %arg10 : i32 -> tensor<128x1xi32, #blocked2>
    %68 = arith.muli %15, %67 : tensor<128x1xi32, #blocked2>
    %69 = tt.splat %arg3 : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked2>
    %70 = tt.addptr %69, %68 : tensor<128x1x!tt.ptr<f16>, #blocked2>, tensor<128x1xi32, #blocked2>
    %71 = tt.broadcast %70 : tensor<128x1x!tt.ptr<f16>, #blocked2> -> tensor<128x128x!tt.ptr<f16>, #blocked2>
    %72 = tt.broadcast %30 : tensor<1x128xi32, #blocked2> -> tensor<128x128xi32, #blocked2>
    %73 = tt.addptr %71, %72 : tensor<128x128x!tt.ptr<f16>, #blocked2>, tensor<128x128xi32, #blocked2>
    %74 = arith.truncf %36#0 : tensor<128x128xf32, #blocked> to tensor<128x128xf16, #blocked>
    %75 = ttg.convert_layout %74 : tensor<128x128xf16, #blocked> -> tensor<128x128xf16, #blocked2>
    tt.store %73, %75, %66 : tensor<128x128x!tt.ptr<f16>, #blocked2>
    tt.return
  }
}

// -----
// 2 warps cannot form a warpgroup: mma.sync (v2) with register operands (kWidth 2 for fp16).
// CHECK: #[[MMA2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}>
// CHECK: ttg.convert_layout %{{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MMA2]], kWidth = 2}>>
// CHECK: ttg.convert_layout %{{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #[[MMA2]], kWidth = 2}>>
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #[[MMA2]]>
// CHECK-NOT: ttng.warp_group_dot
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}, %arg10: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c64_i32 = arith.constant 64 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #blocked>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked2>
    %cst_2 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.muli %0, %c64_i32 : i32
    %3 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %4 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %5 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %6 = tt.splat %2 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %7 = tt.splat %2 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %8 = arith.addi %6, %4 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %9 = arith.addi %7, %5 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %10 = arith.muli %1, %c64_i32 : i32
    %11 = tt.splat %10 : i32 -> tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %12 = arith.addi %11, %3 : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %13 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %14 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %15 = tt.expand_dims %8 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
    %16 = tt.expand_dims %9 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %17 = tt.splat %arg7 : i32 -> tensor<64x1xi32, #blocked1>
    %18 = arith.muli %16, %17 : tensor<64x1xi32, #blocked1>
    %19 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked1>
    %20 = tt.addptr %19, %18 : tensor<64x1x!tt.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %21 = tt.expand_dims %14 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x32xi32, #blocked1>
    %22 = tt.broadcast %20 : tensor<64x1x!tt.ptr<f16>, #blocked1> -> tensor<64x32x!tt.ptr<f16>, #blocked1>
    %23 = tt.broadcast %21 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %24 = tt.addptr %22, %23 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %25 = tt.expand_dims %13 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<32x1xi32, #blocked2>
    %26 = tt.splat %arg8 : i32 -> tensor<32x1xi32, #blocked2>
    %27 = arith.muli %25, %26 : tensor<32x1xi32, #blocked2>
    %28 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked2>
    %29 = tt.addptr %28, %27 : tensor<32x1x!tt.ptr<f16>, #blocked2>, tensor<32x1xi32, #blocked2>
    %30 = tt.expand_dims %12 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x64xi32, #blocked2>
    %31 = tt.broadcast %29 : tensor<32x1x!tt.ptr<f16>, #blocked2> -> tensor<32x64x!tt.ptr<f16>, #blocked2>
    %32 = tt.broadcast %30 : tensor<1x64xi32, #blocked2> -> tensor<32x64xi32, #blocked2>
    %33 = tt.addptr %31, %32 : tensor<32x64x!tt.ptr<f16>, #blocked2>, tensor<32x64xi32, #blocked2>
    %34 = arith.addi %arg6, %c31_i32 : i32
    %35 = arith.divsi %34, %c32_i32 : i32
    %36:3 = scf.for %arg11 = %c0_i32 to %35 step %c1_i32 iter_args(%arg12 = %cst, %arg13 = %24, %arg14 = %33) -> (tensor<64x64xf32, #blocked>, tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<32x64x!tt.ptr<f16>, #blocked2>) : i32 {
      %37 = tt.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
      %38 = arith.cmpi slt, %16, %37 : tensor<64x1xi32, #blocked1>
      %39 = arith.muli %arg11, %c32_i32 : i32
      %40 = arith.subi %arg6, %39 : i32
      %41 = tt.splat %40 : i32 -> tensor<1x32xi32, #blocked1>
      %42 = arith.cmpi slt, %21, %41 : tensor<1x32xi32, #blocked1>
      %43 = tt.broadcast %38 : tensor<64x1xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %44 = tt.broadcast %42 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %45 = arith.andi %43, %44 : tensor<64x32xi1, #blocked1>
      %46 = tt.load %arg13, %45, %cst_0 : tensor<64x32x!tt.ptr<f16>, #blocked1>
      %47 = tt.splat %40 : i32 -> tensor<32x1xi32, #blocked2>
      %48 = arith.cmpi slt, %25, %47 : tensor<32x1xi32, #blocked2>
      %49 = tt.splat %arg5 : i32 -> tensor<1x64xi32, #blocked2>
      %50 = arith.cmpi slt, %30, %49 : tensor<1x64xi32, #blocked2>
      %51 = tt.broadcast %48 : tensor<32x1xi1, #blocked2> -> tensor<32x64xi1, #blocked2>
      %52 = tt.broadcast %50 : tensor<1x64xi1, #blocked2> -> tensor<32x64xi1, #blocked2>
      %53 = arith.andi %51, %52 : tensor<32x64xi1, #blocked2>
      %54 = tt.load %arg14, %53, %cst_1 : tensor<32x64x!tt.ptr<f16>, #blocked2>
      %55 = tt.dot %46, %54, %arg12, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<64x32xf16, #blocked1> * tensor<32x64xf16, #blocked2> -> tensor<64x64xf32, #blocked>
      %56 = tt.addptr %arg13, %cst_2 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %57 = arith.muli %arg8, %c32_i32 : i32
      %58 = tt.splat %57 : i32 -> tensor<32x64xi32, #blocked2>
      %59 = tt.addptr %arg14, %58 : tensor<32x64x!tt.ptr<f16>, #blocked2>, tensor<32x64xi32, #blocked2>
      scf.yield %55, %56, %59 : tensor<64x64xf32, #blocked>, tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<32x64x!tt.ptr<f16>, #blocked2>
    }
    %60 = tt.splat %arg4 : i32 -> tensor<64x1xi32, #blocked2>
    %61 = arith.cmpi slt, %15, %60 : tensor<64x1xi32, #blocked2>
    %62 = tt.splat %arg5 : i32 -> tensor<1x64xi32, #blocked2>
    %63 = arith.cmpi slt, %30, %62 : tensor<1x64xi32, #blocked2>
    %64 = tt.broadcast %61 : tensor<64x1xi1, #blocked2> -> tensor<64x64xi1, #blocked2>
    %65 = tt.broadcast %63 : tensor<1x64xi1, #blocked2> -> tensor<64x64xi1, #blocked2>
    %66 = arith.andi %64, %65 : tensor<64x64xi1, #blocked2>
    %67 = tt.splat %arg10 : i32 -> tensor<64x1xi32, #blocked2>
    %68 = arith.muli %15, %67 : tensor<64x1xi32, #blocked2>
    %69 = tt.splat %arg3 : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
    %70 = tt.addptr %69, %68 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %71 = tt.broadcast %70 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x64x!tt.ptr<f16>, #blocked2>
    %72 = tt.broadcast %30 : tensor<1x64xi32, #blocked2> -> tensor<64x64xi32, #blocked2>
    %73 = tt.addptr %71, %72 : tensor<64x64x!tt.ptr<f16>, #blocked2>, tensor<64x64xi32, #blocked2>
    %74 = arith.truncf %36#0 : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    %75 = ttg.convert_layout %74 : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked2>
    tt.store %73, %75, %66 : tensor<64x64x!tt.ptr<f16>, #blocked2>
    tt.return
  }
}

// -----
// fp64 has no tensor-core path: FMA, with operand layouts derived from the result's blocked
// layout (no kWidth).
// CHECK-NOT: nvidia_mma
// CHECK: ttg.convert_layout %{{.*}} -> tensor<32x16xf64, #ttg.dot_op<{opIdx = 0, parent = #[[P:blocked[0-9]*]]}>>
// CHECK: ttg.convert_layout %{{.*}} -> tensor<16x32xf64, #ttg.dot_op<{opIdx = 1, parent = #[[P]]}>>
// CHECK: tt.dot {{.*}} -> tensor<32x32xf64, #[[P]]>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}, %arg10: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf64, #blocked>
    %c16_i32 = arith.constant 16 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x16xf64, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<16x32xf64, #blocked2>
    %cst_2 = arith.constant dense<16> : tensor<32x16xi32, #blocked1>
    %c15_i32 = arith.constant 15 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.muli %0, %c32_i32 : i32
    %3 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
    %4 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %5 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %6 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %7 = tt.splat %2 : i32 -> tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %8 = tt.splat %2 : i32 -> tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %9 = arith.addi %7, %5 : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %10 = arith.addi %8, %6 : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %11 = arith.muli %1, %c32_i32 : i32
    %12 = tt.splat %11 : i32 -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
    %13 = tt.splat %11 : i32 -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %14 = arith.addi %12, %3 : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
    %15 = arith.addi %13, %4 : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %17 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %18 = tt.expand_dims %9 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked3}>> -> tensor<32x1xi32, #blocked3>
    %19 = tt.expand_dims %10 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<32x1xi32, #blocked1>
    %20 = tt.splat %arg7 : i32 -> tensor<32x1xi32, #blocked1>
    %21 = arith.muli %19, %20 : tensor<32x1xi32, #blocked1>
    %22 = tt.splat %arg0 : !tt.ptr<f64> -> tensor<32x1x!tt.ptr<f64>, #blocked1>
    %23 = tt.addptr %22, %21 : tensor<32x1x!tt.ptr<f64>, #blocked1>, tensor<32x1xi32, #blocked1>
    %24 = tt.expand_dims %17 {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x16xi32, #blocked1>
    %25 = tt.broadcast %23 : tensor<32x1x!tt.ptr<f64>, #blocked1> -> tensor<32x16x!tt.ptr<f64>, #blocked1>
    %26 = tt.broadcast %24 : tensor<1x16xi32, #blocked1> -> tensor<32x16xi32, #blocked1>
    %27 = tt.addptr %25, %26 : tensor<32x16x!tt.ptr<f64>, #blocked1>, tensor<32x16xi32, #blocked1>
    %28 = tt.expand_dims %16 {axis = 1 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<16x1xi32, #blocked2>
    %29 = tt.splat %arg8 : i32 -> tensor<16x1xi32, #blocked2>
    %30 = arith.muli %28, %29 : tensor<16x1xi32, #blocked2>
    %31 = tt.splat %arg1 : !tt.ptr<f64> -> tensor<16x1x!tt.ptr<f64>, #blocked2>
    %32 = tt.addptr %31, %30 : tensor<16x1x!tt.ptr<f64>, #blocked2>, tensor<16x1xi32, #blocked2>
    %33 = tt.expand_dims %14 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked3}>> -> tensor<1x32xi32, #blocked3>
    %34 = tt.expand_dims %15 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x32xi32, #blocked2>
    %35 = tt.broadcast %32 : tensor<16x1x!tt.ptr<f64>, #blocked2> -> tensor<16x32x!tt.ptr<f64>, #blocked2>
    %36 = tt.broadcast %34 : tensor<1x32xi32, #blocked2> -> tensor<16x32xi32, #blocked2>
    %37 = tt.addptr %35, %36 : tensor<16x32x!tt.ptr<f64>, #blocked2>, tensor<16x32xi32, #blocked2>
    %38 = arith.addi %arg6, %c15_i32 : i32
    %39 = arith.divsi %38, %c16_i32 : i32
    %40:3 = scf.for %arg11 = %c0_i32 to %39 step %c1_i32 iter_args(%arg12 = %cst, %arg13 = %27, %arg14 = %37) -> (tensor<32x32xf64, #blocked>, tensor<32x16x!tt.ptr<f64>, #blocked1>, tensor<16x32x!tt.ptr<f64>, #blocked2>) : i32 {
      %41 = tt.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
      %42 = arith.cmpi slt, %19, %41 : tensor<32x1xi32, #blocked1>
      %43 = arith.muli %arg11, %c16_i32 : i32
      %44 = arith.subi %arg6, %43 : i32
      %45 = tt.splat %44 : i32 -> tensor<1x16xi32, #blocked1>
      %46 = arith.cmpi slt, %24, %45 : tensor<1x16xi32, #blocked1>
      %47 = tt.broadcast %42 : tensor<32x1xi1, #blocked1> -> tensor<32x16xi1, #blocked1>
      %48 = tt.broadcast %46 : tensor<1x16xi1, #blocked1> -> tensor<32x16xi1, #blocked1>
      %49 = arith.andi %47, %48 : tensor<32x16xi1, #blocked1>
      %50 = tt.load %arg13, %49, %cst_0 : tensor<32x16x!tt.ptr<f64>, #blocked1>
      %51 = tt.splat %44 : i32 -> tensor<16x1xi32, #blocked2>
      %52 = arith.cmpi slt, %28, %51 : tensor<16x1xi32, #blocked2>
      %53 = tt.splat %arg5 : i32 -> tensor<1x32xi32, #blocked2>
      %54 = arith.cmpi slt, %34, %53 : tensor<1x32xi32, #blocked2>
      %55 = tt.broadcast %52 : tensor<16x1xi1, #blocked2> -> tensor<16x32xi1, #blocked2>
      %56 = tt.broadcast %54 : tensor<1x32xi1, #blocked2> -> tensor<16x32xi1, #blocked2>
      %57 = arith.andi %55, %56 : tensor<16x32xi1, #blocked2>
      %58 = tt.load %arg14, %57, %cst_1 : tensor<16x32x!tt.ptr<f64>, #blocked2>
      %59 = tt.dot %50, %58, %arg12, inputPrecision = ieee {maxNumImpreciseAcc = 0 : i32} : tensor<32x16xf64, #blocked1> * tensor<16x32xf64, #blocked2> -> tensor<32x32xf64, #blocked>
      %60 = tt.addptr %arg13, %cst_2 : tensor<32x16x!tt.ptr<f64>, #blocked1>, tensor<32x16xi32, #blocked1>
      %61 = arith.muli %arg8, %c16_i32 : i32
      %62 = tt.splat %61 : i32 -> tensor<16x32xi32, #blocked2>
      %63 = tt.addptr %arg14, %62 : tensor<16x32x!tt.ptr<f64>, #blocked2>, tensor<16x32xi32, #blocked2>
      scf.yield %59, %60, %63 : tensor<32x32xf64, #blocked>, tensor<32x16x!tt.ptr<f64>, #blocked1>, tensor<16x32x!tt.ptr<f64>, #blocked2>
    }
    %64 = tt.splat %arg4 : i32 -> tensor<32x1xi32, #blocked3>
    %65 = arith.cmpi slt, %18, %64 : tensor<32x1xi32, #blocked3>
    %66 = tt.splat %arg5 : i32 -> tensor<1x32xi32, #blocked3>
    %67 = arith.cmpi slt, %33, %66 : tensor<1x32xi32, #blocked3>
    %68 = tt.broadcast %65 : tensor<32x1xi1, #blocked3> -> tensor<32x32xi1, #blocked3>
    %69 = tt.broadcast %67 : tensor<1x32xi1, #blocked3> -> tensor<32x32xi1, #blocked3>
    %70 = arith.andi %68, %69 : tensor<32x32xi1, #blocked3>
    %71 = tt.splat %arg10 : i32 -> tensor<32x1xi32, #blocked3>
    %72 = arith.muli %18, %71 : tensor<32x1xi32, #blocked3>
    %73 = tt.splat %arg3 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>, #blocked3>
    %74 = tt.addptr %73, %72 : tensor<32x1x!tt.ptr<f16>, #blocked3>, tensor<32x1xi32, #blocked3>
    %75 = tt.broadcast %74 : tensor<32x1x!tt.ptr<f16>, #blocked3> -> tensor<32x32x!tt.ptr<f16>, #blocked3>
    %76 = tt.broadcast %33 : tensor<1x32xi32, #blocked3> -> tensor<32x32xi32, #blocked3>
    %77 = tt.addptr %75, %76 : tensor<32x32x!tt.ptr<f16>, #blocked3>, tensor<32x32xi32, #blocked3>
    %78 = arith.truncf %40#0 : tensor<32x32xf64, #blocked> to tensor<32x32xf16, #blocked>
    %79 = ttg.convert_layout %78 : tensor<32x32xf16, #blocked> -> tensor<32x32xf16, #blocked3>
    tt.store %77, %79, %70 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    tt.return
  }
}
