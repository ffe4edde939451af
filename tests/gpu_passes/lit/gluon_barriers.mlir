// RUN: tritium-opt %s -p 'gluon-insert-shared-barriers' | FileCheck %s

// A Gluon pipelined matmul (tests/gluon/matmul_kernels.py, 2 stages) as the user wrote it:
// every thread must see thread 0's mbarrier inits before its first use, the refill of a
// slot waits for every warp's wgmma that read it, and the invals wait until no thread
// waits. What a TMA load writes is ordered for its readers by wait_barrier, not a barrier.
// CHECK: "ttng.init_barrier"
// CHECK: "ttng.init_barrier"
// CHECK-NEXT: "ttng.fence_async_shared"
// CHECK: "ttg.barrier"
// CHECK-NEXT: "ttng.barrier_expect"
// CHECK-NOT: "ttg.barrier"
// CHECK: scf.for
// CHECK-NOT: "ttg.barrier"
// CHECK: "ttng.wait_barrier"
// CHECK-NOT: "ttg.barrier"
// CHECK: "ttng.warp_group_dot"
// CHECK-NOT: "ttg.barrier"
// CHECK: "ttng.barrier_expect"
// CHECK-NOT: "ttng.async_tma_copy_global_to_local"
// CHECK: "ttg.barrier"
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"
// CHECK-NOT: "ttg.barrier"
// CHECK: scf.yield
// CHECK: "ttg.barrier"
// CHECK-NEXT: "ttng.inval_barrier"
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared2 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.shared = 16400 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul_kernel(%arg0: !tt.tensordesc<tensor<64x32xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tt.tensordesc<tensor<32x64xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %c_ptr: !tt.ptr<f32>, %M: i32, %N: i32, %K: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %c32_i32 = arith.constant 32 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %c2_i32 = arith.constant 2 : i32
    %c31_i32 = arith.constant 31 : i32
    %0 = "ttg.local_alloc"() {allocation.offset = 0 : i32} : () -> !ttg.memdesc<2x64x32xf16, #shared, #smem, mutable>
    %1 = "ttg.local_alloc"() {allocation.offset = 8192 : i32} : () -> !ttg.memdesc<2x32x64xf16, #shared1, #smem, mutable>
    %2 = "ttg.local_alloc"() {allocation.offset = 16384 : i32} : () -> !ttg.memdesc<2x1xi64, #shared2, #smem, mutable>
    %3 = "ttg.memdesc_index"(%2, %c0_i32) : (!ttg.memdesc<2x1xi64, #shared2, #smem, mutable>, i32) -> !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>
    "ttng.init_barrier"(%3) {count = 1 : i32} : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>) -> ()
    %4 = "ttg.memdesc_index"(%2, %c1_i32) : (!ttg.memdesc<2x1xi64, #shared2, #smem, mutable>, i32) -> !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>
    "ttng.init_barrier"(%4) {count = 1 : i32} : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>) -> ()
    "ttng.fence_async_shared"() {bCluster = false} : () -> ()
    %5 = tt.get_program_id x : i32
    %6 = arith.muli %5, %c64_i32 : i32
    %7 = tt.get_program_id y : i32
    %8 = arith.muli %7, %c64_i32 : i32
    %9 = arith.addi %K, %c31_i32 : i32
    %10 = arith.divsi %9, %c32_i32 : i32
    %11 = arith.cmpi sgt, %10, %c0_i32 : i32
    "ttng.barrier_expect"(%3, %11) {size = 8192 : i32} : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
    %12 = "ttg.memdesc_index"(%0, %c0_i32) : (!ttg.memdesc<2x64x32xf16, #shared, #smem, mutable>, i32) -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>
    "ttng.async_tma_copy_global_to_local"(%arg0, %6, %c0_i32, %12, %3, %11) : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32, !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>, !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
    %13 = "ttg.memdesc_index"(%1, %c0_i32) : (!ttg.memdesc<2x32x64xf16, #shared1, #smem, mutable>, i32) -> !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>
    "ttng.async_tma_copy_global_to_local"(%arg5, %c0_i32, %8, %13, %3, %11) : (!tt.tensordesc<tensor<32x64xf16>>, i32, i32, !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>, !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
    %14 = scf.for %arg14 = %c0_i32 to %10 step %c1_i32 iter_args(%arg15 = %cst) -> (tensor<64x64xf32, #mma>) : i32 {
      %15 = arith.remsi %arg14, %c2_i32 : i32
      %16 = "ttg.memdesc_index"(%2, %15) : (!ttg.memdesc<2x1xi64, #shared2, #smem, mutable>, i32) -> !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>
      %17 = arith.divsi %arg14, %c2_i32 : i32
      %18 = arith.andi %17, %c1_i32 : i32
      "ttng.wait_barrier"(%16, %18) : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i32) -> ()
      %19 = "ttg.memdesc_index"(%0, %15) : (!ttg.memdesc<2x64x32xf16, #shared, #smem, mutable>, i32) -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>
      %20 = "ttg.memdesc_index"(%1, %15) : (!ttg.memdesc<2x32x64xf16, #shared1, #smem, mutable>, i32) -> !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>
      %21 = "ttng.warp_group_dot"(%19, %20, %arg15) {inputPrecision = 0 : i32, isAsync = true, maxNumImpreciseAcc = 0 : i32} : (!ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>, !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %22 = "ttng.warp_group_dot_wait"(%21) {pendings = 1 : i32} : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %23 = arith.addi %arg14, %c1_i32 : i32
      %24 = arith.remsi %23, %c2_i32 : i32
      %25 = arith.cmpi slt, %23, %10 : i32
      %26 = "ttg.memdesc_index"(%2, %24) : (!ttg.memdesc<2x1xi64, #shared2, #smem, mutable>, i32) -> !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>
      "ttng.barrier_expect"(%26, %25) {size = 8192 : i32} : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
      %27 = arith.muli %23, %c32_i32 : i32
      %28 = "ttg.memdesc_index"(%0, %24) : (!ttg.memdesc<2x64x32xf16, #shared, #smem, mutable>, i32) -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>
      "ttng.async_tma_copy_global_to_local"(%arg0, %6, %27, %28, %26, %25) : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32, !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x32>, !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
      %29 = "ttg.memdesc_index"(%1, %24) : (!ttg.memdesc<2x32x64xf16, #shared1, #smem, mutable>, i32) -> !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>
      "ttng.async_tma_copy_global_to_local"(%arg5, %27, %8, %29, %26, %25) : (!tt.tensordesc<tensor<32x64xf16>>, i32, i32, !ttg.memdesc<32x64xf16, #shared1, #smem, mutable, 2x32x64>, !ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>, i1) -> ()
      scf.yield %22 : tensor<64x64xf32, #mma>
    }
    %30 = "ttng.warp_group_dot_wait"(%14) {pendings = 0 : i32} : (tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
    "ttng.inval_barrier"(%3) : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>) -> ()
    "ttng.inval_barrier"(%4) : (!ttg.memdesc<1xi64, #shared2, #smem, mutable, 2x1>) -> ()
    %31 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %32 = tt.splat %6 : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %33 = arith.addi %32, %31 : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %34 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %35 = tt.splat %8 : i32 -> tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %36 = arith.addi %35, %34 : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %37 = tt.expand_dims %33 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %38 = tt.splat %M : i32 -> tensor<64x1xi32, #blocked>
    %39 = arith.cmpi slt, %37, %38 : tensor<64x1xi32, #blocked>
    %40 = tt.expand_dims %36 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %41 = tt.splat %N : i32 -> tensor<1x64xi32, #blocked>
    %42 = arith.cmpi slt, %40, %41 : tensor<1x64xi32, #blocked>
    %43 = tt.broadcast %39 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %44 = tt.broadcast %42 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %45 = arith.andi %43, %44 : tensor<64x64xi1, #blocked>
    %46 = tt.splat %N : i32 -> tensor<64x1xi32, #blocked>
    %47 = arith.muli %37, %46 : tensor<64x1xi32, #blocked>
    %48 = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %49 = tt.addptr %48, %47 : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %50 = tt.broadcast %49 : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x64x!tt.ptr<f32>, #blocked>
    %51 = tt.broadcast %40 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %52 = tt.addptr %50, %51 : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %53 = ttg.convert_layout %30 {allocation.offset = 0 : i32} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tt.store %52, %53, %45 : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
