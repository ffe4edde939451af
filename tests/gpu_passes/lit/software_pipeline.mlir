// RUN: tritium-opt %s -p 'tritongpu-accelerate-matmul,tritongpu-remove-layout-conversions,tritongpu-pipeline{num-stages=3}' | FileCheck %s

// num_stages = 3: loads run two iterations ahead as cp.async copies into 3-slot rings, one
// wgmma group stays in flight (a barrier after its wait frees the slot the refill
// overwrites), the accumulator is carried in the wgmma layout, and the loop drains copies
// and wgmma groups after it.
// CHECK: %[[RA:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3x128x64xf16, #{{.*}}, #smem, mutable>
// CHECK: %[[RB:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3x64x128xf16, #{{.*}}, #smem, mutable>
// CHECK-NEXT: "ttg.barrier"() : () -> ()
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_commit_group"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_commit_group"
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #mma>, {{.*}}, i32, i32)
// CHECK: "ttg.async_wait"() {num = 1 : i32}
// CHECK-NEXT: %[[VA:.*]] = "ttg.memdesc_index"(%[[RA]], %[[EXT:.*]]) :
// CHECK-NEXT: %[[VB:.*]] = "ttg.memdesc_index"(%[[RB]], %[[EXT]]) :
// CHECK: %[[D:.*]] = "ttng.warp_group_dot"(%[[VA]], %[[VB]], %{{.*}}) {{.*}}isAsync = true
// CHECK-NEXT: %[[W:.*]] = "ttng.warp_group_dot_wait"(%[[D]]) {pendings = 1 : i32}
// CHECK-NEXT: "ttg.barrier"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_commit_group"
// CHECK: scf.yield %[[W]]
// CHECK: "ttg.async_wait"() {num = 0 : i32}
// CHECK: "ttng.warp_group_dot_wait"(%{{.*}}) {pendings = 0 : i32}
// CHECK-NOT: tt.load {{.*}}tensor<128x64x
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
