// RUN: canonicalize --verify-each
// Shape ops of constants and splats, trans of trans, addptr by zero, load/store with a
// constant mask.

// CHECK-LABEL: @shapes_of_constants
tt.func @shapes_of_constants() -> (tensor<4x8xf32>, tensor<1x8xi32>, tensor<32xf32>, tensor<8x4xf32>, tensor<1xi32>) {
  %c = arith.constant 1.5 : f32
  %i = arith.constant 3 : i32
  // CHECK-DAG: arith.constant dense<1.500000e+00> : tensor<4x8xf32>
  // CHECK-DAG: arith.constant dense<3> : tensor<1x8xi32>
  // CHECK-DAG: arith.constant dense<1.500000e+00> : tensor<32xf32>
  // CHECK-DAG: arith.constant dense<1.500000e+00> : tensor<8x4xf32>
  // CHECK-DAG: arith.constant dense<5> : tensor<1xi32>
  // CHECK-NOT: tt.splat
  // CHECK-NOT: tt.broadcast
  // CHECK-NOT: tt.expand_dims
  // CHECK-NOT: tt.reshape
  // CHECK-NOT: tt.trans
  // CHECK-NOT: tt.make_range
  %0 = tt.splat %c : f32 -> tensor<1x8xf32>
  %1 = tt.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  %2 = tt.splat %i : i32 -> tensor<8xi32>
  %3 = tt.expand_dims %2 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %4 = tt.reshape %1 : tensor<4x8xf32> -> tensor<32xf32>
  %5 = tt.trans %1 {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %6 = tt.make_range {end = 6 : i32, start = 5 : i32} : tensor<1xi32>
  tt.return %1, %3, %4, %5, %6 : tensor<4x8xf32>, tensor<1x8xi32>, tensor<32xf32>, tensor<8x4xf32>, tensor<1xi32>
}

// CHECK-LABEL: @shapes_of_splats
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[T:[^:]*]]: tensor<4x8xf32>, %[[V:[^:]*]]: tensor<1x8xf32>)
tt.func @shapes_of_splats(%x: f32, %t: tensor<4x8xf32>, %v: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-DAG: %[[S:.*]] = tt.splat %[[X]] : f32 -> tensor<4x8xf32>
  // CHECK-DAG: %[[S3:.*]] = tt.splat %[[X]] : f32 -> tensor<4x1x8xf32>
  // CHECK-DAG: %[[B:.*]] = tt.broadcast %[[V]] : tensor<1x8xf32> -> tensor<4x8xf32>
  %0 = tt.splat %x : f32 -> tensor<1x8xf32>
  %1 = tt.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  %2 = tt.splat %x : f32 -> tensor<4x8xf32>
  %3 = tt.expand_dims %2 {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4x1x8xf32>
  // trans(trans(t)) is t; broadcast to the same type is the operand.
  %4 = tt.trans %t {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %5 = tt.trans %4 {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %6 = tt.broadcast %t : tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = tt.broadcast %v : tensor<1x8xf32> -> tensor<1x8xf32>
  %8 = tt.broadcast %7 : tensor<1x8xf32> -> tensor<4x8xf32>
  // CHECK-NOT: tt.trans
  // CHECK: tt.return %[[S]], %[[S3]], %[[T]], %[[T]], %[[B]]
  tt.return %1, %3, %5, %6, %8 : tensor<4x8xf32>, tensor<4x1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: @pointers_and_masks
// CHECK-SAME: (%[[P:[^:]*]]: tensor<64x!tt.ptr<f32>>, %[[M:[^:]*]]: tensor<64xi1>)
tt.func @pointers_and_masks(%p: tensor<64x!tt.ptr<f32>>, %m: tensor<64xi1>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant dense<0> : tensor<64xi32>
  %true = arith.constant dense<true> : tensor<64xi1>
  %false = arith.constant dense<false> : tensor<64xi1>
  %other = arith.constant dense<2.0> : tensor<64xf32>
  // CHECK-DAG: %[[OTHER:.*]] = arith.constant dense<2.000000e+00> : tensor<64xf32>
  // CHECK-NOT: tt.addptr
  // CHECK: %[[L:.*]] = tt.load %[[P]] : tensor<64x!tt.ptr<f32>>
  // CHECK-NEXT: tt.store %[[P]], %[[L]] : tensor<64x!tt.ptr<f32>>
  // CHECK-NEXT: tt.store %[[P]], %[[L]], %[[M]] : tensor<64x!tt.ptr<f32>>
  // CHECK-NEXT: tt.return %[[L]], %[[OTHER]]
  %q = tt.addptr %p, %zero : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %0 = tt.load %q, %true : tensor<64x!tt.ptr<f32>>
  %1 = tt.load %q, %false, %other : tensor<64x!tt.ptr<f32>>
  tt.store %q, %0, %true : tensor<64x!tt.ptr<f32>>
  tt.store %q, %0, %false : tensor<64x!tt.ptr<f32>>
  tt.store %q, %0, %m : tensor<64x!tt.ptr<f32>>
  tt.return %0, %1 : tensor<64xf32>, tensor<64xf32>
}
