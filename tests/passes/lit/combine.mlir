// RUN: combine --verify-each
// Triton's combine peepholes.

// CHECK-LABEL: @dot_add
// CHECK-SAME: (%[[A:[^:]*]]: tensor<64x32xf16>, %[[B:[^:]*]]: tensor<32x64xf16>, %[[C:[^:]*]]: tensor<64x64xf32>, %[[D:[^:]*]]: tensor<64x64xf32>)
tt.func @dot_add(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>, %d: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  // CHECK: %[[R0:.*]] = tt.dot %[[A]], %[[B]], %[[C]], inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  // CHECK-NEXT: %[[R1:.*]] = tt.dot %[[A]], %[[B]], %[[D]], inputPrecision = tf32
  %0 = tt.dot %a, %b, %zero, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = arith.addf %0, %c : tensor<64x64xf32>
  %2 = tt.dot %a, %b, %zero, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %3 = arith.addf %d, %2 : tensor<64x64xf32>
  // A dot result with a second use keeps its zero accumulator.
  // CHECK-NEXT: %[[R2:.*]] = tt.dot %[[A]], %[[B]], %{{.*}}, inputPrecision = tf32
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[R2]], %[[C]]
  // CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[R2]]
  %4 = tt.dot %a, %b, %zero, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %5 = arith.addf %4, %c : tensor<64x64xf32>
  %6 = arith.addf %5, %4 : tensor<64x64xf32>
  // CHECK-NEXT: tt.return %[[R0]], %[[R1]], %[[T]]
  tt.return %1, %3, %6 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

// CHECK-LABEL: @dot_add_int
tt.func @dot_add_int(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  // CHECK: %[[R:.*]] = tt.dot %arg0, %arg1, %arg2
  // CHECK-NOT: arith.addi
  // CHECK: tt.return %[[R]]
  %0 = tt.dot %a, %b, %zero, inputPrecision = ieee : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  %1 = arith.addi %c, %0 : tensor<16x16xi32>
  tt.return %1 : tensor<16x16xi32>
}

// CHECK-LABEL: @addptr_chain
// CHECK-SAME: (%[[P:[^:]*]]: tensor<128x!tt.ptr<f32>>, %[[O1:[^:]*]]: tensor<128xi64>, %[[O2:[^:]*]]: tensor<128xi64>, %[[O3:[^:]*]]: tensor<128xi32>, %[[O4:[^:]*]]: tensor<128xi32>)
tt.func @addptr_chain(%p: tensor<128x!tt.ptr<f32>>, %o1: tensor<128xi64>, %o2: tensor<128xi64>, %o3: tensor<128xi32>, %o4: tensor<128xi32>) -> (tensor<128x!tt.ptr<f32>>, tensor<128x!tt.ptr<f32>>, tensor<128x!tt.ptr<f32>>) {
  // i64 offsets always combine.
  // CHECK: %[[S:.*]] = arith.addi %[[O1]], %[[O2]] : tensor<128xi64>
  // CHECK-NEXT: %[[R0:.*]] = tt.addptr %[[P]], %[[S]]
  %0 = tt.addptr %p, %o1 : tensor<128x!tt.ptr<f32>>, tensor<128xi64>
  %1 = tt.addptr %0, %o2 : tensor<128x!tt.ptr<f32>>, tensor<128xi64>
  // i32 offsets could overflow when added: kept apart.
  // CHECK-NEXT: %[[Q:.*]] = tt.addptr %[[P]], %[[O3]]
  // CHECK-NEXT: %[[R1:.*]] = tt.addptr %[[Q]], %[[O4]]
  %2 = tt.addptr %p, %o3 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %3 = tt.addptr %2, %o4 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // i32 constants that do not overflow combine (and then fold).
  // CHECK-NEXT: %[[R2:.*]] = tt.addptr %[[P]], %{{.*}} : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // CHECK-NEXT: tt.return %[[R0]], %[[R1]], %[[R2]]
  %c10 = arith.constant dense<10> : tensor<128xi32>
  %c15 = arith.constant dense<15> : tensor<128xi32>
  %4 = tt.addptr %p, %c10 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %5 = tt.addptr %4, %c15 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.return %1, %3, %5 : tensor<128x!tt.ptr<f32>>, tensor<128x!tt.ptr<f32>>, tensor<128x!tt.ptr<f32>>
}

// CHECK-LABEL: @select_masked_load
// CHECK-SAME: (%[[P:[^:]*]]: tensor<64x!tt.ptr<f32>>, %[[C:[^:]*]]: i1, %[[O:[^:]*]]: tensor<64xf32>)
tt.func @select_masked_load(%p: tensor<64x!tt.ptr<f32>>, %c: i1, %o: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK: %[[M:.*]] = tt.splat %[[C]] : i1 -> tensor<64xi1>
  // CHECK-NEXT: %[[L:.*]] = tt.load %[[P]], %[[M]], %[[O]] : tensor<64x!tt.ptr<f32>>
  // CHECK-NEXT: tt.return %[[L]]
  %m = tt.splat %c : i1 -> tensor<64xi1>
  %l = tt.load %p, %m : tensor<64x!tt.ptr<f32>>
  %s = arith.select %c, %l, %o : tensor<64xf32>
  tt.return %s : tensor<64xf32>
}

// CHECK-LABEL: @select_load_store_between
tt.func @select_load_store_between(%p: tensor<64x!tt.ptr<f32>>, %c: i1, %o: tensor<64xf32>) -> tensor<64xf32> {
  // A store between the load and the select: the load must not move past it.
  // CHECK: tt.load
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: arith.select
  %m = tt.splat %c : i1 -> tensor<64xi1>
  %l = tt.load %p, %m : tensor<64x!tt.ptr<f32>>
  tt.store %p, %o : tensor<64x!tt.ptr<f32>>
  %s = arith.select %c, %l, %o : tensor<64xf32>
  tt.return %s : tensor<64xf32>
}

// CHECK-LABEL: @broadcast_splat
tt.func @broadcast_splat(%x: f32) -> tensor<32x32xf32> {
  // CHECK: %[[S:.*]] = tt.splat %arg0 : f32 -> tensor<32x32xf32>
  // CHECK-NEXT: tt.return %[[S]]
  %0 = tt.splat %x : f32 -> tensor<1x32xf32>
  %1 = tt.broadcast %0 : tensor<1x32xf32> -> tensor<32x32xf32>
  tt.return %1 : tensor<32x32xf32>
}

// sum(x[:, :, None] * y[None, :, :], axis=1) is dot(x, y): an IEEE fp32 dot into zeros
// (the sum's own precision), on the tensors the expand_dims started from; the [M, K, N]
// product is gone. The add into the accumulator then folds into the dot (dot_add).
// CHECK-LABEL: @broadcast_mul_sum
// CHECK-SAME: (%[[X:[^:]*]]: tensor<32x16xf32>, %[[Y:[^:]*]]: tensor<16x64xf32>, %[[ACC:[^:]*]]: tensor<32x64xf32>)
// CHECK-NOT: arith.mulf
// CHECK: %[[D:.*]] = tt.dot %[[X]], %[[Y]], %[[ACC]], inputPrecision = ieee {maxNumImpreciseAcc = 0 : i32} : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT: tt.return %[[D]]
tt.func @broadcast_mul_sum(%x: tensor<32x16xf32>, %y: tensor<16x64xf32>, %acc: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = tt.expand_dims %x {axis = 2 : i32} : tensor<32x16xf32> -> tensor<32x16x1xf32>
  %1 = tt.broadcast %0 : tensor<32x16x1xf32> -> tensor<32x16x64xf32>
  %2 = tt.expand_dims %y {axis = 0 : i32} : tensor<16x64xf32> -> tensor<1x16x64xf32>
  %3 = tt.broadcast %2 : tensor<1x16x64xf32> -> tensor<32x16x64xf32>
  %4 = arith.mulf %1, %3 : tensor<32x16x64xf32>
  %5 = "tt.reduce"(%4) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) {axis = 1 : i32} : (tensor<32x16x64xf32>) -> tensor<32x64xf32>
  %6 = arith.addf %5, %acc : tensor<32x64xf32>
  tt.return %6 : tensor<32x64xf32>
}

// The operands the other way round (y * x), and broadcast sources that are not
// expand_dims (a reshape drops their unit dim).
// CHECK-LABEL: @broadcast_mul_sum_swapped
// CHECK-SAME: (%[[X:[^:]*]]: tensor<16x8x1xf32>, %[[Y:[^:]*]]: tensor<1x8x32xf32>)
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
// CHECK-NEXT: %[[A:.*]] = tt.reshape %[[X]] {allow_reorder = false} : tensor<16x8x1xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[B:.*]] = tt.reshape %[[Y]] {allow_reorder = false} : tensor<1x8x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[D:.*]] = tt.dot %[[A]], %[[B]], %[[Z]], inputPrecision = ieee
// CHECK-NEXT: tt.return %[[D]]
tt.func @broadcast_mul_sum_swapped(%x: tensor<16x8x1xf32>, %y: tensor<1x8x32xf32>) -> tensor<16x32xf32> {
  %1 = tt.broadcast %x : tensor<16x8x1xf32> -> tensor<16x8x32xf32>
  %3 = tt.broadcast %y : tensor<1x8x32xf32> -> tensor<16x8x32xf32>
  %4 = arith.mulf %3, %1 : tensor<16x8x32xf32>
  %5 = "tt.reduce"(%4) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) {axis = 1 : i32} : (tensor<16x8x32xf32>) -> tensor<16x32xf32>
  tt.return %5 : tensor<16x32xf32>
}

// Left alone (upstream's conditions): a sum along another dim, a max, M or N below 16, a
// broadcast along two dims, fp64.
// CHECK-LABEL: @broadcast_mul_not_a_dot
// CHECK-NOT: tt.dot
// CHECK-COUNT-5: "tt.reduce"
// CHECK-NOT: tt.dot
tt.func @broadcast_mul_not_a_dot(%x: tensor<32x16x1xf32>, %y: tensor<1x16x64xf32>, %s: tensor<8x16x1xf32>, %w: tensor<1x1x64xf32>, %dx: tensor<32x16x1xf64>, %dy: tensor<1x16x64xf64>) -> (tensor<32x16xf32>, tensor<32x64xf32>, tensor<8x64xf32>, tensor<32x64xf32>, tensor<32x64xf64>) {
  %x3 = tt.broadcast %x : tensor<32x16x1xf32> -> tensor<32x16x64xf32>
  %y3 = tt.broadcast %y : tensor<1x16x64xf32> -> tensor<32x16x64xf32>
  %p = arith.mulf %x3, %y3 : tensor<32x16x64xf32>
  %r0 = "tt.reduce"(%p) ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) {axis = 2 : i32} : (tensor<32x16x64xf32>) -> tensor<32x16xf32>
  %r1 = "tt.reduce"(%p) ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.maxnumf %a, %b : f32
    tt.reduce.return %t : f32
  }) {axis = 1 : i32} : (tensor<32x16x64xf32>) -> tensor<32x64xf32>
  %s3 = tt.broadcast %s : tensor<8x16x1xf32> -> tensor<8x16x64xf32>
  %ys = tt.broadcast %y : tensor<1x16x64xf32> -> tensor<8x16x64xf32>
  %ps = arith.mulf %s3, %ys : tensor<8x16x64xf32>
  %r2 = "tt.reduce"(%ps) ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) {axis = 1 : i32} : (tensor<8x16x64xf32>) -> tensor<8x64xf32>
  %w3 = tt.broadcast %w : tensor<1x1x64xf32> -> tensor<32x16x64xf32>
  %pw = arith.mulf %x3, %w3 : tensor<32x16x64xf32>
  %r3 = "tt.reduce"(%pw) ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) {axis = 1 : i32} : (tensor<32x16x64xf32>) -> tensor<32x64xf32>
  %dx3 = tt.broadcast %dx : tensor<32x16x1xf64> -> tensor<32x16x64xf64>
  %dy3 = tt.broadcast %dy : tensor<1x16x64xf64> -> tensor<32x16x64xf64>
  %pd = arith.mulf %dx3, %dy3 : tensor<32x16x64xf64>
  %r4 = "tt.reduce"(%pd) ({
  ^bb0(%a: f64, %b: f64):
    %t = arith.addf %a, %b : f64
    tt.reduce.return %t : f64
  }) {axis = 1 : i32} : (tensor<32x16x64xf64>) -> tensor<32x64xf64>
  tt.return %r0, %r1, %r2, %r3, %r4 : tensor<32x16xf32>, tensor<32x64xf32>, tensor<8x64xf32>, tensor<32x64xf32>, tensor<32x64xf64>
}
