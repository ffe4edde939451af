// RUN: tritium-opt %s -p 'allocate-shared-memory' --split-input-file | FileCheck %s

// Scratch lives only while its op runs, so every scratch buffer starts at 0; a reduction
// whose axis stays inside each warp needs none. Explicit buffers live from alloc to last
// use: the two overlapping ones are stacked, the third reuses the first one's bytes.
// CHECK: module attributes {{.*}}ttg.shared = 12288 : i32
// CHECK: "tt.reduce"
// CHECK: {allocation.offset = 0 : i32, axis = 1 : i32} : (tensor<4x1024xf32
// CHECK: "tt.reduce"
// CHECK: {axis = 1 : i32} : (tensor<16x64xf32
// CHECK: ttg.convert_layout %{{.*}} {allocation.offset = 0 : i32}
// CHECK: "ttg.local_alloc"() {allocation.offset = 0 : i32} : () -> !ttg.memdesc<64x64xf16
// CHECK: "ttg.local_alloc"() {allocation.offset = 8192 : i32} : () -> !ttg.memdesc<32x64xf16
// CHECK: "ttg.local_alloc"() {allocation.offset = 0 : i32} : () -> !ttg.memdesc<16x64xf16
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scratch(%x: tensor<4x1024xf32, #blocked>, %y: tensor<16x64xf32, #blocked1>, %z: tensor<32x32xf32, #blocked1>) {
    %0 = "tt.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) {axis = 1 : i32} : (tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %1 = "tt.reduce"(%y) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) {axis = 1 : i32} : (tensor<16x64xf32, #blocked1>) -> tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %2 = ttg.convert_layout %z : tensor<32x32xf32, #blocked1> -> tensor<32x32xf32, #blocked2>
    %3 = "ttg.local_alloc"() : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %4 = "ttg.local_alloc"() : () -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable>
    "ttg.local_dealloc"(%3) : (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>) -> ()
    %5 = "ttg.local_alloc"() : () -> !ttg.memdesc<16x64xf16, #shared, #smem, mutable>
    "ttg.local_dealloc"(%4) : (!ttg.memdesc<32x64xf16, #shared, #smem, mutable>) -> ()
    "ttg.local_dealloc"(%5) : (!ttg.memdesc<16x64xf16, #shared, #smem, mutable>) -> ()
    tt.return
  }
}

// -----

// Nothing needs shared memory: ttg.shared = 0 and no offsets.
// CHECK: module attributes {{.*}}ttg.shared = 0 : i32
// CHECK-NOT: allocation.offset
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @none(%p: tensor<512x!tt.ptr<f32>, #blocked>) {
    %0 = tt.load %p : tensor<512x!tt.ptr<f32>, #blocked>
    %1 = arith.addf %0, %0 : tensor<512xf32, #blocked>
    tt.store %p, %1 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A buffer used inside a loop stays live for the whole loop: the reduce placed after the
// buffer's last use in the body still runs while the buffer is in use (next iteration).
// CHECK: ttg.shared = 8256 : i32
// CHECK: "ttg.local_alloc"() {allocation.offset = 0 : i32}
// CHECK: {allocation.offset = 8192 : i32, axis = 1 : i32}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop(%x: tensor<4x1024xf32, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = "ttg.local_alloc"() : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      "ttg.local_dealloc"(%buf) : (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>) -> ()
      %0 = "tt.reduce"(%x) ({
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        tt.reduce.return %s : f32
      }) {axis = 1 : i32} : (tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield
    }
    tt.return
  }
}
