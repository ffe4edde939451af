// RUN: tritium-opt %s -p 'tritongpu-optimize-thread-locality' --split-input-file | FileCheck %s
// RUN: tritium-opt %s -p 'tritongpu-optimize-thread-locality,canonicalize,cse' --split-input-file | FileCheck %s --check-prefix=CANON

// A row sum accumulated over a loop, of a 32x128 tile where each thread holds 2 runs of 4
// elements of a row (E = 8, 16 threads share a row): in the loop the tile is viewed as
// 32x16x8 (reshape to 32x2x16x4, the 2 and 16 swapped, reshape) in a layout where the 8
// are one thread's, reduced along that dim into a 32x16 partial that starts at 0 (addf's
// neutral); after the loop the 16 partials of a row are reduced, converted back to the
// accumulator's layout and added to the original init (1.5).
// CHECK-LABEL: tt.func public @row_sum
// CHECK: %[[INIT:.*]] = arith.constant dense<1.500000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.slice<{dim = 2, parent = #[[L3:blocked[0-9]*]]}>>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[PART:.*]] = %[[ZERO]])
// CHECK: %[[X:.*]] = tt.load
// CHECK-NEXT: %[[V1:.*]] = tt.reshape %[[X]] {allow_reorder = false, efficient_layout = true} : tensor<32x128xf32, #blocked> -> tensor<32x2x16x4xf32
// CHECK-NEXT: %[[V2:.*]] = tt.trans %[[V1]] {order = array<i32: 0, 2, 1, 3>} : {{.*}} -> tensor<32x16x2x4xf32
// CHECK-NEXT: %[[V3:.*]] = tt.reshape %[[V2]] {{.*}} -> tensor<32x16x8xf32, #[[L3]]>
// CHECK-NEXT: %[[LOCAL:.*]] = "tt.reduce"(%[[V3]])
// CHECK: arith.addf
// CHECK: {axis = 2 : i32} : (tensor<32x16x8xf32, #[[L3]]>) -> tensor<32x16xf32
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[PART]], %[[LOCAL]] : tensor<32x16xf32
// CHECK-NEXT: scf.yield %[[ACC]], %[[NEW]]
// CHECK: %[[TOT:.*]] = "tt.reduce"(%[[R]]#1)
// CHECK: {axis = 1 : i32} : (tensor<32x16xf32, #ttg.slice<{dim = 2, parent = #[[L3]]}>>) -> tensor<32xf32
// CHECK-NEXT: %[[CVT:.*]] = ttg.convert_layout %[[TOT]] : {{.*}} -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
// CHECK-NEXT: %[[FIN:.*]] = arith.addf %[[INIT]], %[[CVT]]
// CHECK-NEXT: tt.return %[[FIN]]
// The thread-local layout: a thread's 4 contiguous elements along the new last dim,
// one thread and one warp there.
// CHECK-DAG: #[[L3]] = #ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [2, 16, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>
// canonicalize drops the accumulator the loop no longer changes.
// CANON-LABEL: tt.func public @row_sum
// CANON: scf.for {{.*}} -> (tensor<32x16xf32
// CANON-COUNT-2: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @row_sum(%ptrs: tensor<32x128x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<1.500000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x128x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x128xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %u = arith.addf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}

// -----

// A running minimum (minnumf): the partials start at +inf.
// CHECK-LABEL: tt.func public @row_min
// CHECK: arith.constant dense<0x7F800000> : tensor<32x16xf32
// CHECK: "tt.reduce"
// CHECK: arith.minnumf
// CHECK: {axis = 2 : i32}
// CHECK: arith.minnumf {{.*}} : tensor<32x16xf32
// CHECK: "tt.reduce"
// CHECK: {axis = 1 : i32}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @row_min(%ptrs: tensor<32x64x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0x7F800000> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.minnumf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %u = arith.minnumf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}

// -----

// Left alone: a sum of row maxima (the update is not the reduction's combine: partial
// maxima summed over iterations would be wrong); the accumulator read elsewhere in the
// loop; one element per thread along the axis; a reduction along dim 0; an init that is
// no constant.
// CHECK-LABEL: tt.func public @sum_of_max
// CHECK-COUNT-1: "tt.reduce"
// CHECK-NOT: "tt.reduce"
// CHECK-NOT: tt.reshape
// CHECK-LABEL: tt.func public @acc_read
// CHECK-COUNT-1: "tt.reduce"
// CHECK-NOT: "tt.reduce"
// CHECK-LABEL: tt.func public @one_per_thread
// CHECK-COUNT-1: "tt.reduce"
// CHECK-NOT: "tt.reduce"
// CHECK-LABEL: tt.func public @axis0
// CHECK-COUNT-1: "tt.reduce"
// CHECK-NOT: "tt.reduce"
// CHECK-LABEL: tt.func public @init_arg
// CHECK-COUNT-1: "tt.reduce"
// CHECK-NOT: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @sum_of_max(%ptrs: tensor<32x64x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.000000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.maxnumf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %u = arith.addf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
  tt.func public @acc_read(%ptrs: tensor<32x64x!tt.ptr<f32>, #blocked>, %out: tensor<32x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #blocked}>>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.000000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      tt.store %out, %acc : tensor<32x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #blocked}>>
      %u = arith.addf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
  tt.func public @one_per_thread(%ptrs: tensor<32x32x!tt.ptr<f32>, #row>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.000000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x32x!tt.ptr<f32>, #row>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x32xf32, #row>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>
      %u = arith.addf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #row}>>
  }
  tt.func public @axis0(%ptrs: tensor<32x64x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.000000e+00> : tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 0 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
      %u = arith.addf %acc, %s : tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
      scf.yield %u : tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
    }
    tt.return %r : tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
  }
  tt.func public @init_arg(%ptrs: tensor<32x64x!tt.ptr<f32>, #blocked>, %init: tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>) : i32 {
      %x = tt.load %ptrs : tensor<32x64x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) {axis = 1 : i32} : (tensor<32x64xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %u = arith.addf %acc, %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %u : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}
