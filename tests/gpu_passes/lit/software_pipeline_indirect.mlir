// RUN: tritium-opt %s -p 'tritongpu-accelerate-matmul,tritongpu-remove-layout-conversions,tritongpu-pipeline{num-stages=3},canonicalize' --split-input-file | FileCheck %s

// Tiles whose address comes from an index table read in the loop (block-sparse matmul,
// Inductor's flex attention), num_stages = 3.
//
// 1. Block-sparse matmul: each iteration reads its block's column from IDX and loads the A
// and B tiles there. The index load runs one iteration before the copies it feeds (the
// prologue reads the indices of iterations 0, 1 and 2, each predicated on its iteration
// existing, and issues the copies of 0 and 1); the loop carries the index of iteration i+2,
// issues its copies after wgmma(i) and reads the index of i+3 (predicated) at its end.
// CHECK-LABEL: tt.func public @bsr_matmul
// CHECK: %[[RA:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>
// CHECK: %[[RB:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x64x128xf16, #shared, #smem, mutable>
// CHECK: %[[P0:.*]] = arith.cmpi sgt, %[[N:.*]], %c0_i32 : i32
// CHECK: %[[P1:.*]] = arith.cmpi sgt, %[[N]], %c1_i32 : i32
// CHECK: %[[P2:.*]] = arith.cmpi sgt, %[[N]], %c2_i32 : i32
// CHECK: tt.load %{{.*}}, %[[P0]] : !tt.ptr<i32>
// CHECK: "ttg.memdesc_index"(%[[RA]], %c0_i32)
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.memdesc_index"(%[[RB]], %c0_i32)
// CHECK: "ttg.async_copy_global_to_local"
// CHECK-NEXT: "ttg.async_commit_group"
// CHECK: tt.load %{{.*}}, %[[P1]] : !tt.ptr<i32>
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.async_copy_global_to_local"
// CHECK-NEXT: "ttg.async_commit_group"
// CHECK: %[[X2:.*]] = tt.load %{{.*}}, %[[P2]] : !tt.ptr<i32>
// CHECK-NEXT: scf.for %[[IV:.*]] = %c0_i32 to %[[N]] step %c1_i32 iter_args(%{{.*}} = %{{.*}}, %[[X:.*]] = %[[X2]], %{{.*}} = %c0_i32, %{{.*}} = %c2_i32) -> (tensor<128x128xf32, #mma>, i32, i32, i32)
// CHECK-NEXT: "ttg.async_wait"() {num = 1 : i32}
// CHECK: %[[D:.*]] = "ttng.warp_group_dot"({{.*}}isAsync = true
// CHECK-NEXT: %[[W:.*]] = "ttng.warp_group_dot_wait"(%[[D]]) {pendings = 1 : i32}
// CHECK-NEXT: "ttg.barrier"
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %c2_i32 : i32
// CHECK-NEXT: %[[PA:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]] : i32
// CHECK-NEXT: arith.muli %[[X]], %c64_i32 : i32
// CHECK: %[[M:.*]] = tt.splat %[[PA]] : i1 -> tensor<128x64xi1
// CHECK-NEXT: "ttg.async_copy_global_to_local"(%{{.*}}, %{{.*}}, %[[M]])
// CHECK: "ttg.async_copy_global_to_local"
// CHECK-NEXT: "ttg.async_commit_group"
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %c3_i32 : i32
// CHECK-NEXT: %[[PN:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK: %[[XN:.*]] = tt.load %{{.*}}, %[[PN]] : !tt.ptr<i32>
// CHECK: scf.yield %[[W]], %[[XN]], %{{.*}}, %{{.*}} : tensor<128x128xf32, #mma>, i32, i32, i32
// CHECK: "ttg.async_wait"() {num = 0 : i32}
// CHECK: "ttng.warp_group_dot_wait"(%{{.*}}) {pendings = 0 : i32}
// CHECK-NOT: "ttg.async_copy_global_to_local"
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bsr_matmul(%A: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %B: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %C: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %IDX: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %NBLK: i32, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bk: i32 {tt.divisibility = 16 : i32}, %stride_cm: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %5 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %6 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %7 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %8 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %9 = arith.addi %7, %4 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %10 = arith.addi %8, %6 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %11 = arith.muli %1, %c128_i32 : i32
    %12 = tt.splat %11 : i32 -> tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %13 = tt.splat %11 : i32 -> tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %14 = arith.addi %12, %3 : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %15 = arith.addi %13, %5 : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %16 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %17 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
    %18 = scf.for %arg8 = %c0_i32 to %NBLK step %c1_i32 iter_args(%arg9 = %cst) -> (tensor<128x128xf32, #blocked>) : i32 {
      %19 = arith.muli %0, %NBLK : i32
      %20 = tt.addptr %IDX, %19 : !tt.ptr<i32>, i32
      %21 = tt.addptr %20, %arg8 : !tt.ptr<i32>, i32
      %22 = tt.load %21 : !tt.ptr<i32>
      %23 = arith.muli %22, %c64_i32 : i32
      %24 = tt.splat %23 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %25 = tt.splat %23 : i32 -> tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
      %26 = arith.addi %24, %16 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %27 = arith.addi %25, %17 : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
      %28 = tt.expand_dims %10 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>> -> tensor<128x1xi32, #blocked3>
      %29 = tt.splat %stride_am : i32 -> tensor<128x1xi32, #blocked3>
      %30 = arith.muli %28, %29 : tensor<128x1xi32, #blocked3>
      %31 = tt.splat %A : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked3>
      %32 = tt.addptr %31, %30 : tensor<128x1x!tt.ptr<f16>, #blocked3>, tensor<128x1xi32, #blocked3>
      %33 = tt.expand_dims %27 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>> -> tensor<1x64xi32, #blocked3>
      %34 = tt.broadcast %32 : tensor<128x1x!tt.ptr<f16>, #blocked3> -> tensor<128x64x!tt.ptr<f16>, #blocked3>
      %35 = tt.broadcast %33 : tensor<1x64xi32, #blocked3> -> tensor<128x64xi32, #blocked3>
      %36 = tt.addptr %34, %35 : tensor<128x64x!tt.ptr<f16>, #blocked3>, tensor<128x64xi32, #blocked3>
      %37 = tt.load %36 : tensor<128x64x!tt.ptr<f16>, #blocked3>
      %38 = tt.expand_dims %26 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
      %39 = tt.splat %stride_bk : i32 -> tensor<64x1xi32, #blocked2>
      %40 = arith.muli %38, %39 : tensor<64x1xi32, #blocked2>
      %41 = tt.splat %B : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
      %42 = tt.addptr %41, %40 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %43 = tt.expand_dims %15 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x128xi32, #blocked2>
      %44 = tt.broadcast %42 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x128x!tt.ptr<f16>, #blocked2>
      %45 = tt.broadcast %43 : tensor<1x128xi32, #blocked2> -> tensor<64x128xi32, #blocked2>
      %46 = tt.addptr %44, %45 : tensor<64x128x!tt.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
      %47 = tt.load %46 : tensor<64x128x!tt.ptr<f16>, #blocked2>
      %48 = tt.dot %37, %47, %arg9, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked3> * tensor<64x128xf16, #blocked2> -> tensor<128x128xf32, #blocked>
      scf.yield %48 : tensor<128x128xf32, #blocked>
    }
    %49 = tt.expand_dims %9 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>
    %50 = tt.splat %stride_cm : i32 -> tensor<128x1xi32, #blocked1>
    %51 = arith.muli %49, %50 : tensor<128x1xi32, #blocked1>
    %52 = tt.splat %C : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>, #blocked1>
    %53 = tt.addptr %52, %51 : tensor<128x1x!tt.ptr<f32>, #blocked1>, tensor<128x1xi32, #blocked1>
    %54 = tt.expand_dims %14 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x128xi32, #blocked1>
    %55 = tt.broadcast %53 : tensor<128x1x!tt.ptr<f32>, #blocked1> -> tensor<128x128x!tt.ptr<f32>, #blocked1>
    %56 = tt.broadcast %54 : tensor<1x128xi32, #blocked1> -> tensor<128x128xi32, #blocked1>
    %57 = tt.addptr %55, %56 : tensor<128x128x!tt.ptr<f32>, #blocked1>, tensor<128x128xi32, #blocked1>
    %58 = ttg.convert_layout %18 : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #blocked1>
    tt.store %57, %58 : tensor<128x128x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// 2. Attention over a block list (flex attention's loop): the KV block offset is carried
// and advanced by (idx[j+1] - idx[j]) * BN, two table reads in the loop. The offset is
// carried two iterations ahead: the loop issues the K/V copies of iteration i+2 from it, then
// reads the table for i+2 (predicated on i+2 existing, the second read also by its own mask)
// and advances it. K, loaded [BN, D] and transposed for Q K^T, rides a ring in its loaded
// layout; the dot reads a transposed view of the slot.
// CHECK-LABEL: tt.func public @sparse_attn
// CHECK: %[[RK:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: %[[RV:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[N:.*]] step %c1_i32 iter_args({{.*}}, %[[OFF:.*]] = %{{.*}}, %{{.*}} = %c0_i32, %{{.*}} = %c2_i32) -> ({{.*}}, i32, i32, i32)
// CHECK-NEXT: "ttg.async_wait"() {num = 3 : i32}
// CHECK-NEXT: %[[SK:.*]] = "ttg.memdesc_index"(%[[RK]], %{{.*}}) : {{.*}} -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 3x64x64>
// CHECK-NEXT: %[[KT:.*]] = "ttg.memdesc_trans"(%[[SK]]) {order = [1 : i32, 0 : i32]} : {{.*}} -> !ttg.memdesc<64x64xf16, #shared1, #smem, mutable, 3x64x64>
// CHECK-NEXT: "ttng.warp_group_dot"(%{{.*}}, %[[KT]], %{{.*}})
// CHECK: "ttg.async_wait"() {num = 2 : i32}
// CHECK-NEXT: %[[SV:.*]] = "ttg.memdesc_index"(%[[RV]], %{{.*}})
// CHECK-NEXT: "ttng.warp_group_dot"(%{{.*}}, %[[SV]], %{{.*}}) {{.*}}isAsync = true
// CHECK-NEXT: "ttg.barrier"
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %c2_i32 : i32
// CHECK-NEXT: %[[PA:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]] : i32
// CHECK-NEXT: tt.splat %[[OFF]] : i32
// CHECK: "ttg.memdesc_index"(%[[RK]],
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: "ttg.memdesc_index"(%[[RV]],
// CHECK: "ttg.async_copy_global_to_local"
// CHECK: %[[CUR:.*]] = tt.load %{{.*}}, %[[PA]] : !tt.ptr<i32>
// CHECK: %[[NXT:.*]] = tt.load %{{.*}}, %{{.*}} : !tt.ptr<i32>
// CHECK-NEXT: %[[DIFF:.*]] = arith.subi %[[NXT]], %[[CUR]] : i32
// CHECK-NEXT: %[[JUMP:.*]] = arith.muli %[[DIFF]], %c64_i32 : i32
// CHECK-NEXT: %[[OFF2:.*]] = arith.addi %[[OFF]], %[[JUMP]] : i32
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[OFF2]], %{{.*}}, %{{.*}} :
// CHECK-NOT: tt.load {{.*}}tensor<64x64x
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked4 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sparse_attn(%Q: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %K: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %V: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %O: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %KV_IDX: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %KV_NUM: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %stride_m: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %c16_i32 = arith.constant 16 : i32
    %c64_i32 = arith.constant 64 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128xf32, #blocked>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #blocked>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #blocked1>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %2 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %3 = tt.splat %1 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %4 = arith.addi %3, %2 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %5 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %6 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %7 = tt.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<128x1xi32, #blocked2>
    %8 = tt.splat %stride_m : i32 -> tensor<128x1xi32, #blocked2>
    %9 = arith.muli %7, %8 : tensor<128x1xi32, #blocked2>
    %10 = tt.splat %Q : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked2>
    %11 = tt.addptr %10, %9 : tensor<128x1x!tt.ptr<f16>, #blocked2>, tensor<128x1xi32, #blocked2>
    %12 = tt.expand_dims %6 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x64xi32, #blocked2>
    %13 = tt.broadcast %11 : tensor<128x1x!tt.ptr<f16>, #blocked2> -> tensor<128x64x!tt.ptr<f16>, #blocked2>
    %14 = tt.broadcast %12 : tensor<1x64xi32, #blocked2> -> tensor<128x64xi32, #blocked2>
    %15 = tt.addptr %13, %14 : tensor<128x64x!tt.ptr<f16>, #blocked2>, tensor<128x64xi32, #blocked2>
    %16 = tt.load %15 : tensor<128x64x!tt.ptr<f16>, #blocked2>
    %17 = arith.muli %0, %c16_i32 : i32
    %18 = tt.addptr %KV_IDX, %17 : !tt.ptr<i32>, i32
    %19 = tt.addptr %KV_NUM, %0 : !tt.ptr<i32>, i32
    %20 = tt.load %19 : !tt.ptr<i32>
    %21 = tt.load %18 : !tt.ptr<i32>
    %22 = arith.muli %21, %c64_i32 : i32
    %23:4 = scf.for %arg7 = %c0_i32 to %20 step %c1_i32 iter_args(%arg8 = %cst, %arg9 = %cst_1, %arg10 = %cst_0, %arg11 = %22) -> (tensor<128xf32, #blocked>, tensor<128x64xf32, #blocked1>, tensor<128xf32, #blocked>, i32) : i32 {
      %24 = tt.splat %arg11 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %25 = arith.addi %24, %5 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %26 = tt.expand_dims %25 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
      %27 = tt.splat %stride_m : i32 -> tensor<64x1xi32, #blocked2>
      %28 = arith.muli %26, %27 : tensor<64x1xi32, #blocked2>
      %29 = tt.splat %K : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
      %30 = tt.addptr %29, %28 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %31 = tt.broadcast %30 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x64x!tt.ptr<f16>, #blocked2>
      %32 = tt.broadcast %12 : tensor<1x64xi32, #blocked2> -> tensor<64x64xi32, #blocked2>
      %33 = tt.addptr %31, %32 : tensor<64x64x!tt.ptr<f16>, #blocked2>, tensor<64x64xi32, #blocked2>
      %34 = tt.load %33 : tensor<64x64x!tt.ptr<f16>, #blocked2>
      %35 = tt.trans %34 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked2> -> tensor<64x64xf16, #blocked3>
      %36 = tt.dot %16, %35, %cst_1, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked2> * tensor<64x64xf16, #blocked3> -> tensor<128x64xf32, #blocked1>
      %37 = "tt.reduce"(%36) ({
        ^bb0(%arg12: f32, %arg13: f32):
          %38 = arith.maxnumf %arg12, %arg13 : f32
          tt.reduce.return %38 : f32
      }) {axis = 1 : i32} : (tensor<128x64xf32, #blocked1>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked1}>>
      %39 = ttg.convert_layout %37 : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128xf32, #blocked>
      %40 = arith.maxnumf %arg10, %39 : tensor<128xf32, #blocked>
      %41 = ttg.convert_layout %40 : tensor<128xf32, #blocked> -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>>
      %42 = tt.expand_dims %41 {axis = 1 : i32} : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>> -> tensor<128x1xf32, #blocked4>
      %43 = ttg.convert_layout %42 : tensor<128x1xf32, #blocked4> -> tensor<128x1xf32, #blocked1>
      %44 = tt.broadcast %43 : tensor<128x1xf32, #blocked1> -> tensor<128x64xf32, #blocked1>
      %45 = arith.subf %36, %44 : tensor<128x64xf32, #blocked1>
      %46 = math.exp2 %45 : tensor<128x64xf32, #blocked1>
      %47 = arith.subf %arg10, %40 : tensor<128xf32, #blocked>
      %48 = math.exp2 %47 : tensor<128xf32, #blocked>
      %49 = arith.mulf %arg8, %48 : tensor<128xf32, #blocked>
      %50 = "tt.reduce"(%46) ({
        ^bb0(%arg14: f32, %arg15: f32):
          %51 = arith.addf %arg14, %arg15 : f32
          tt.reduce.return %51 : f32
      }) {axis = 1 : i32} : (tensor<128x64xf32, #blocked1>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked1}>>
      %52 = ttg.convert_layout %50 : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128xf32, #blocked>
      %53 = arith.addf %49, %52 : tensor<128xf32, #blocked>
      %54 = ttg.convert_layout %48 : tensor<128xf32, #blocked> -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>>
      %55 = tt.expand_dims %54 {axis = 1 : i32} : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>> -> tensor<128x1xf32, #blocked4>
      %56 = ttg.convert_layout %55 : tensor<128x1xf32, #blocked4> -> tensor<128x1xf32, #blocked1>
      %57 = tt.broadcast %56 : tensor<128x1xf32, #blocked1> -> tensor<128x64xf32, #blocked1>
      %58 = arith.mulf %arg9, %57 : tensor<128x64xf32, #blocked1>
      %59 = tt.splat %V : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
      %60 = tt.addptr %59, %28 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %61 = tt.broadcast %60 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x64x!tt.ptr<f16>, #blocked2>
      %62 = tt.addptr %61, %32 : tensor<64x64x!tt.ptr<f16>, #blocked2>, tensor<64x64xi32, #blocked2>
      %63 = tt.load %62 : tensor<64x64x!tt.ptr<f16>, #blocked2>
      %64 = arith.truncf %46 : tensor<128x64xf32, #blocked1> to tensor<128x64xf16, #blocked1>
      %65 = tt.dot %64, %63, %58, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked1> * tensor<64x64xf16, #blocked2> -> tensor<128x64xf32, #blocked1>
      %66 = tt.addptr %18, %arg7 : !tt.ptr<i32>, i32
      %67 = tt.load %66 : !tt.ptr<i32>
      %68 = arith.addi %arg7, %c1_i32 : i32
      %69 = arith.cmpi slt, %68, %20 : i32
      %70 = tt.addptr %66, %c1_i32 : !tt.ptr<i32>, i32
      %71 = tt.load %70, %69 : !tt.ptr<i32>
      %72 = arith.subi %71, %67 : i32
      %73 = arith.muli %72, %c64_i32 : i32
      %74 = arith.addi %arg11, %73 : i32
      scf.yield %53, %65, %40, %74 : tensor<128xf32, #blocked>, tensor<128x64xf32, #blocked1>, tensor<128xf32, #blocked>, i32
    }
    %75 = ttg.convert_layout %23#0 : tensor<128xf32, #blocked> -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>>
    %76 = tt.expand_dims %75 {axis = 1 : i32} : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked4}>> -> tensor<128x1xf32, #blocked4>
    %77 = ttg.convert_layout %76 : tensor<128x1xf32, #blocked4> -> tensor<128x1xf32, #blocked1>
    %78 = tt.broadcast %77 : tensor<128x1xf32, #blocked1> -> tensor<128x64xf32, #blocked1>
    %79 = arith.divf %23#1, %78 : tensor<128x64xf32, #blocked1>
    %80 = tt.splat %O : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked2>
    %81 = tt.addptr %80, %9 : tensor<128x1x!tt.ptr<f16>, #blocked2>, tensor<128x1xi32, #blocked2>
    %82 = tt.broadcast %81 : tensor<128x1x!tt.ptr<f16>, #blocked2> -> tensor<128x64x!tt.ptr<f16>, #blocked2>
    %83 = tt.addptr %82, %14 : tensor<128x64x!tt.ptr<f16>, #blocked2>, tensor<128x64xi32, #blocked2>
    %84 = arith.truncf %79 : tensor<128x64xf32, #blocked1> to tensor<128x64xf16, #blocked1>
    %85 = ttg.convert_layout %84 : tensor<128x64xf16, #blocked1> -> tensor<128x64xf16, #blocked2>
    tt.store %83, %85 : tensor<128x64x!tt.ptr<f16>, #blocked2>
    tt.return
  }
}

// -----

// 3. The loop writes global memory (here the table itself): reading the table ahead could
// miss a write, so the loop is not pipelined and keeps its loads.
// CHECK-LABEL: tt.func public @bsr_matmul_store
// CHECK-NOT: "ttg.async_copy_global_to_local"
// CHECK: scf.for
// CHECK: tt.load %{{.*}} : !tt.ptr<i32>
// CHECK: tt.store
// CHECK: tt.load %{{.*}} : tensor<128x64x!tt.ptr<f16>
// CHECK: tt.load %{{.*}} : tensor<64x128x!tt.ptr<f16>
// CHECK: "ttng.warp_group_dot"
// CHECK-NOT: "ttg.async_copy_global_to_local"
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bsr_matmul_store(%A: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %B: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %C: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %IDX: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %NBLK: i32, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bk: i32 {tt.divisibility = 16 : i32}, %stride_cm: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.muli %0, %c128_i32 : i32
    %3 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %5 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %6 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %7 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %8 = tt.splat %2 : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %9 = arith.addi %7, %4 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %10 = arith.addi %8, %6 : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    %11 = arith.muli %1, %c128_i32 : i32
    %12 = tt.splat %11 : i32 -> tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %13 = tt.splat %11 : i32 -> tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %14 = arith.addi %12, %3 : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %15 = arith.addi %13, %5 : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %16 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %17 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
    %18 = scf.for %arg8 = %c0_i32 to %NBLK step %c1_i32 iter_args(%arg9 = %cst) -> (tensor<128x128xf32, #blocked>) : i32 {
      %19 = arith.muli %0, %NBLK : i32
      %20 = tt.addptr %IDX, %19 : !tt.ptr<i32>, i32
      %21 = tt.addptr %20, %arg8 : !tt.ptr<i32>, i32
      %22 = tt.load %21 : !tt.ptr<i32>
      %23 = tt.addptr %21, %c1_i32 : !tt.ptr<i32>, i32
      %24 = arith.addi %22, %c1_i32 : i32
      tt.store %23, %24 : !tt.ptr<i32>
      %25 = arith.muli %22, %c64_i32 : i32
      %26 = tt.splat %25 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %27 = tt.splat %25 : i32 -> tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
      %28 = arith.addi %26, %16 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>
      %29 = arith.addi %27, %17 : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>>
      %30 = tt.expand_dims %10 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked3}>> -> tensor<128x1xi32, #blocked3>
      %31 = tt.splat %stride_am : i32 -> tensor<128x1xi32, #blocked3>
      %32 = arith.muli %30, %31 : tensor<128x1xi32, #blocked3>
      %33 = tt.splat %A : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked3>
      %34 = tt.addptr %33, %32 : tensor<128x1x!tt.ptr<f16>, #blocked3>, tensor<128x1xi32, #blocked3>
      %35 = tt.expand_dims %29 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked3}>> -> tensor<1x64xi32, #blocked3>
      %36 = tt.broadcast %34 : tensor<128x1x!tt.ptr<f16>, #blocked3> -> tensor<128x64x!tt.ptr<f16>, #blocked3>
      %37 = tt.broadcast %35 : tensor<1x64xi32, #blocked3> -> tensor<128x64xi32, #blocked3>
      %38 = tt.addptr %36, %37 : tensor<128x64x!tt.ptr<f16>, #blocked3>, tensor<128x64xi32, #blocked3>
      %39 = tt.load %38 : tensor<128x64x!tt.ptr<f16>, #blocked3>
      %40 = tt.expand_dims %28 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<64x1xi32, #blocked2>
      %41 = tt.splat %stride_bk : i32 -> tensor<64x1xi32, #blocked2>
      %42 = arith.muli %40, %41 : tensor<64x1xi32, #blocked2>
      %43 = tt.splat %B : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked2>
      %44 = tt.addptr %43, %42 : tensor<64x1x!tt.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %45 = tt.expand_dims %15 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x128xi32, #blocked2>
      %46 = tt.broadcast %44 : tensor<64x1x!tt.ptr<f16>, #blocked2> -> tensor<64x128x!tt.ptr<f16>, #blocked2>
      %47 = tt.broadcast %45 : tensor<1x128xi32, #blocked2> -> tensor<64x128xi32, #blocked2>
      %48 = tt.addptr %46, %47 : tensor<64x128x!tt.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
      %49 = tt.load %48 : tensor<64x128x!tt.ptr<f16>, #blocked2>
      %50 = tt.dot %39, %49, %arg9, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked3> * tensor<64x128xf16, #blocked2> -> tensor<128x128xf32, #blocked>
      scf.yield %50 : tensor<128x128xf32, #blocked>
    }
    %51 = tt.expand_dims %9 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>
    %52 = tt.splat %stride_cm : i32 -> tensor<128x1xi32, #blocked1>
    %53 = arith.muli %51, %52 : tensor<128x1xi32, #blocked1>
    %54 = tt.splat %C : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>, #blocked1>
    %55 = tt.addptr %54, %53 : tensor<128x1x!tt.ptr<f32>, #blocked1>, tensor<128x1xi32, #blocked1>
    %56 = tt.expand_dims %14 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x128xi32, #blocked1>
    %57 = tt.broadcast %55 : tensor<128x1x!tt.ptr<f32>, #blocked1> -> tensor<128x128x!tt.ptr<f32>, #blocked1>
    %58 = tt.broadcast %56 : tensor<1x128xi32, #blocked1> -> tensor<128x128xi32, #blocked1>
    %59 = tt.addptr %57, %58 : tensor<128x128x!tt.ptr<f32>, #blocked1>, tensor<128x128xi32, #blocked1>
    %60 = ttg.convert_layout %18 : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #blocked1>
    tt.store %59, %60 : tensor<128x128x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}
