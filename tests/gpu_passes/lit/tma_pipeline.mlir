// RUN: tritium-opt %s -p 'tritongpu-accelerate-matmul,tritongpu-remove-layout-conversions,tritongpu-pipeline{num-stages=3},triton-nvidia-tma-lowering' | FileCheck %s

// Tutorial 09's TMA matmul (A [128x64] and B [128x64] K-major through kernel-parameter
// descriptors, b.T into the dot): both tiles get 3-slot rings in their TMA layout and one
// 3-barrier ring each, initialised behind a barrier; thread 0 arms each slot with the
// tile's bytes; in the loop each operand waits on its own slot's phase just before the dot,
// B reaches it through a transposed view; the refill follows the wgmma wait and a barrier;
// the barriers are invalidated after the loop; the epilogue's descriptor store becomes a TMA
// store from a swizzled buffer.
// CHECK-DAG: #[[SH:[a-z0-9]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[SHT:[a-z0-9]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK: %[[RA:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3x128x64xf16, #[[SH]], #smem, mutable>
// CHECK: %[[RB:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3x128x64xf16, #[[SH]], #smem, mutable>
// CHECK: %[[BA:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3xi64,
// CHECK: %[[BB:.*]] = "ttg.local_alloc"() {{.*}}-> !ttg.memdesc<3xi64,
// CHECK-NEXT: "ttg.barrier"
// CHECK-COUNT-6: "ttng.init_barrier"
// CHECK: "ttng.fence_async_shared"
// CHECK-NEXT: "ttg.barrier"
// CHECK: "ttng.barrier_expect"({{.*}}) {size = 16384 : i32}
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg0,
// CHECK: "ttng.barrier_expect"({{.*}}) {size = 16384 : i32}
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg5,
// CHECK: scf.for
// CHECK-NOT: tt.descriptor_load
// CHECK: %[[VA:.*]] = "ttg.memdesc_index"(%[[RA]], %[[EXT:[a-z0-9]+]])
// CHECK-NEXT: %[[WA:.*]] = "ttg.memdesc_index"(%[[BA]], %[[EXT]])
// CHECK-NEXT: "ttng.wait_barrier"(%[[WA]], %[[PHASE:[a-z0-9]+]])
// CHECK: %[[VB:.*]] = "ttg.memdesc_index"(%[[RB]], %[[EXT]])
// CHECK-NEXT: %[[WB:.*]] = "ttg.memdesc_index"(%[[BB]], %[[EXT]])
// CHECK-NEXT: "ttng.wait_barrier"(%[[WB]], %[[PHASE]])
// CHECK-NEXT: %[[TB:.*]] = "ttg.memdesc_trans"(%[[VB]]) {{.*}}-> !ttg.memdesc<64x128xf16, #[[SHT]]
// CHECK-NEXT: %[[D:.*]] = "ttng.warp_group_dot"(%[[VA]], %[[TB]], {{.*}}) {{.*}}isAsync = true
// CHECK-NEXT: "ttng.warp_group_dot_wait"(%[[D]]) {pendings = 1 : i32}
// CHECK-NEXT: "ttg.barrier"
// CHECK: "ttng.barrier_expect"
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg0,
// CHECK: "ttng.barrier_expect"
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg5,
// CHECK: scf.yield
// CHECK: "ttng.warp_group_dot_wait"({{.*}}) {pendings = 0 : i32}
// CHECK-NEXT: "ttg.barrier"
// CHECK-COUNT-6: "ttng.inval_barrier"
// CHECK: %[[C:.*]] = "ttg.local_alloc"(%{{.*}}) : (tensor<128x128xf16, {{.*}}>) -> !ttg.memdesc<128x128xf16, #[[SH]], #smem>
// CHECK-NEXT: "ttng.async_tma_copy_local_to_global"(%arg10, %{{.*}}, %{{.*}}, %[[C]])
// CHECK-NEXT: "ttng.async_tma_store_wait"() {pendings = 0 : i32}

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mm_k(%arg0: !tt.tensordesc<tensor<128x64xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tt.tensordesc<tensor<128x64xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tt.tensordesc<tensor<128x128xf16>>, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %arg15: i32 {tt.divisibility = 16 : i32}, %arg16: i32 {tt.divisibility = 16 : i32}, %arg17: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %c64_i32 = arith.constant 64 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %c63_i32 = arith.constant 63 : i32
    %0 = tt.get_program_id x : i32
    %1 = tt.get_program_id y : i32
    %2 = arith.addi %arg17, %c63_i32 : i32
    %3 = arith.divsi %2, %c64_i32 : i32
    %4 = scf.for %arg18 = %c0_i32 to %3 step %c1_i32 iter_args(%arg19 = %cst) -> (tensor<128x128xf32, #blocked>) : i32 {
      %5 = arith.muli %0, %c128_i32 : i32
      %6 = arith.muli %arg18, %c64_i32 : i32
      %7 = tt.descriptor_load %arg0[%5, %6] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked1>
      %8 = arith.muli %1, %c128_i32 : i32
      %9 = tt.descriptor_load %arg5[%8, %6] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked1>
      %10 = tt.trans %9 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked1> -> tensor<64x128xf16, #blocked>
      %11 = tt.dot %7, %10, %arg19, inputPrecision = tf32 {maxNumImpreciseAcc = 0 : i32} : tensor<128x64xf16, #blocked1> * tensor<64x128xf16, #blocked> -> tensor<128x128xf32, #blocked>
      scf.yield %11 : tensor<128x128xf32, #blocked>
    }
    %12 = arith.muli %0, %c128_i32 : i32
    %13 = arith.muli %1, %c128_i32 : i32
    %14 = arith.truncf %4 : tensor<128x128xf32, #blocked> to tensor<128x128xf16, #blocked>
    tt.descriptor_store %arg10[%12, %13], %14 : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #blocked>
    tt.return
  }
}

