// RUN: tritium-opt %s -p 'tritongpu-fuse-nested-loops{num-stages=3},tritongpu-pipeline{num-stages=3},triton-nvidia-tma-lowering,canonicalize,cse' | FileCheck %s

// Tutorial 09's persistent TMA matmul (flatten=True), as the TTGIR stage has it before the
// fuse pass. One fused loop (len(tiles) * k_tiles iterations), pipelined across tiles:
// 3-slot rings and barrier rings before it, with the C store buffer; in the loop the tile
// state (T, the tile id, the prologue's offsets) is advanced twice, for this iteration and
// D = 2 iterations ahead, each with its prologue branch; this iteration waits on its slots
// and runs the async wgmma with useC = (T != 0) (no select on the accumulator), then the
// barrier, then the copies for iteration k + 2 from the ahead offsets, predicated on
// k + 2 < total; the epilogue branch (T == k_tiles - 1) waits for every wgmma, converts,
// waits for the last tile's TMA store to have been read, writes the buffer, fences and
// stores; one more store wait after the loop. The fallback (k_tiles == 0) keeps the
// outer loop with no K loop.
// CHECK: %[[LENI:.*]] = arith.maxsi
// CHECK: %[[LENJ:.*]] = arith.maxsi
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpi sgt, %[[LENJ]], %c0_i32
// CHECK: scf.if %[[NZ]] {
// CHECK: %[[LAST:.*]] = arith.subi %[[LENJ]], %c1_i32
// CHECK: %[[TOTAL:.*]] = arith.muli %[[LENI]], %[[LENJ]]
// CHECK: %[[RA:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>
// CHECK: %[[RB:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>
// CHECK: %[[BA:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3xi64
// CHECK: %[[BB:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<3xi64
// CHECK-COUNT-4: "ttng.async_tma_copy_global_to_local"
// CHECK: %[[CBUF:.*]] = "ttg.local_alloc"() : () -> !ttg.memdesc<128x128xf16, #shared, #smem, mutable>
// CHECK-NEXT: scf.for %[[K:.*]] = %c0_i32 to %[[TOTAL]] step %c1_i32 iter_args(%[[T:[a-z0-9]+]] = %[[LAST]], %[[I:[a-z0-9]+]] = %{{.*}}, %[[OA:[a-z0-9]+]] = %[[P:[0-9]+]], %[[OB:[a-z0-9]+]] = %[[P]], %[[ACC:[a-z0-9]+]] = %cst, %[[TA:[a-z0-9]+]] = %{{.*}}, %[[IA:[a-z0-9]+]] = %{{.*}}, %[[OAA:[a-z0-9]+]] = %{{.*}}, %[[OBA:[a-z0-9]+]] = %{{.*}}, %[[EXT:[a-z0-9]+]] = %c0_i32, %[[INS:[a-z0-9]+]] = %c2_i32, %[[PH:[a-z0-9]+]] = %c0_i32)
// CHECK-NOT: scf.for
// CHECK: %[[TN:.*]] = arith.select %{{.*}}, %c0_i32, %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %c0_i32
// CHECK: %[[PRO:.*]]:2 = scf.if %[[FIRST]] -> (i32, i32) {
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[OA]], %[[OB]]
// CHECK: "ttg.memdesc_index"(%[[BA]], %[[EXT]])
// CHECK-NEXT: "ttng.wait_barrier"({{.*}}, %[[PH]])
// CHECK: "ttg.memdesc_index"(%[[BB]], %[[EXT]])
// CHECK-NEXT: "ttng.wait_barrier"({{.*}}, %[[PH]])
// CHECK: %[[USEC:.*]] = arith.xori %[[FIRST]], %true
// CHECK: %[[D:.*]] = "ttng.warp_group_dot"(%{{.*}}, %{{.*}}, %[[ACC]], %[[USEC]]) {{{.*}}isAsync = true
// CHECK-NEXT: %[[W:.*]] = "ttng.warp_group_dot_wait"(%[[D]]) {pendings = 1 : i32}
// CHECK-NEXT: "ttg.barrier"
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[K]], %c2_i32
// CHECK-NEXT: %[[PRED:.*]] = arith.cmpi slt, %[[AHEAD]], %[[TOTAL]]
// CHECK-NEXT: arith.cmpi eq, %[[TA]], %[[LAST]]
// CHECK: %[[PROA:.*]]:2 = scf.if
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[OAA]], %[[OBA]]
// CHECK: "ttng.barrier_expect"({{.*}}, %[[PRED]]) {size = 16384 : i32}
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg0, %[[PROA]]#0, {{.*}}, %[[PRED]])
// CHECK: "ttng.barrier_expect"({{.*}}, %[[PRED]]) {size = 16384 : i32}
// CHECK-NEXT: "ttng.async_tma_copy_global_to_local"(%arg5, %[[PROA]]#1, {{.*}}, %[[PRED]])
// CHECK: %[[END:.*]] = arith.cmpi eq, %[[TN]], %[[LAST]]
// CHECK-NEXT: scf.if %[[END]] {
// CHECK-NEXT: %[[W0:.*]] = "ttng.warp_group_dot_wait"(%[[W]]) {pendings = 0 : i32}
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[W0]]
// CHECK-NEXT: "ttng.async_tma_store_wait"() {pendings = 0 : i32}
// CHECK-NEXT: "ttg.local_store"(%[[H]], %[[CBUF]])
// CHECK-NEXT: "ttng.fence_async_shared"
// CHECK-NEXT: "ttg.barrier"
// CHECK-NEXT: "ttng.async_tma_copy_local_to_global"(%arg10, %[[PRO]]#0, %[[PRO]]#1, %[[CBUF]])
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[TN]], {{.*}}, %[[PRO]]#0, %[[PRO]]#1, %[[W]],
// CHECK-NEXT: }
// CHECK-NEXT: "ttng.async_tma_store_wait"() {pendings = 0 : i32}
// CHECK: } else {
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: "ttng.async_tma_copy_local_to_global"
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul_kernel_tma_persistent(%arg0: !tt.tensordesc<tensor<128x64xf16>> {tt.tma = true}, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tt.tensordesc<tensor<128x64xf16>> {tt.tma = true}, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tt.tensordesc<tensor<128x128xf16>> {tt.tma = true}, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %M: i32, %N: i32, %K: i32) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %c8_i32 = arith.constant 8 : i32
    %c132_i32 = arith.constant 132 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c0_i32 = arith.constant 0 : i32
    %c127_i32 = arith.constant 127 : i32
    %c63_i32 = arith.constant 63 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.addi %M, %c127_i32 : i32
    %2 = arith.divsi %1, %c128_i32 : i32
    %3 = arith.addi %N, %c127_i32 : i32
    %4 = arith.divsi %3, %c128_i32 : i32
    %5 = arith.addi %K, %c63_i32 : i32
    %6 = arith.divsi %5, %c64_i32 : i32
    %7 = arith.muli %2, %4 : i32
    %8 = arith.muli %4, %c8_i32 : i32
    scf.for %arg18 = %0 to %7 step %c132_i32 : i32 {
      %9 = arith.divsi %arg18, %8 : i32
      %10 = arith.muli %9, %c8_i32 : i32
      %11 = arith.subi %2, %10 : i32
      %12 = arith.minsi %11, %c8_i32 : i32
      %13 = arith.remsi %arg18, %12 : i32
      %14 = arith.addi %10, %13 : i32
      %15 = arith.remsi %arg18, %8 : i32
      %16 = arith.divsi %15, %12 : i32
      %17 = arith.muli %14, %c128_i32 : i32
      %18 = arith.muli %16, %c128_i32 : i32
      %19 = scf.for %arg19 = %c0_i32 to %6 step %c1_i32 iter_args(%arg20 = %cst) -> (tensor<128x128xf32, #mma>) : i32 {
        %20 = arith.muli %arg19, %c64_i32 : i32
        %21 = tt.descriptor_load %arg0[%17, %20] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tt.descriptor_load %arg5[%18, %20] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tt.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blocked1>
        %24 = "ttg.local_alloc"(%21) : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
        %25 = "ttg.local_alloc"(%23) : (tensor<64x128xf16, #blocked1>) -> !ttg.memdesc<64x128xf16, #shared, #smem>
        %26 = "ttng.warp_group_dot"(%24, %25, %arg20) {inputPrecision = 0 : i32, isAsync = false, maxNumImpreciseAcc = 0 : i32} : (!ttg.memdesc<128x64xf16, #shared, #smem>, !ttg.memdesc<64x128xf16, #shared, #smem>, tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma>
        scf.yield %26 : tensor<128x128xf32, #mma>
      }
      %27 = arith.truncf %19 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
      tt.descriptor_store %arg10[%17, %18], %27 : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #mma>
    } {tt.flatten}
    tt.return
  }
}

