// RUN: reorder-broadcast --verify-each
// Splats and broadcasts move after elementwise ops.

// CHECK-LABEL: @splat_splat
// CHECK-SAME: (%[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32)
tt.func @splat_splat(%a: f32, %b: f32) -> tensor<128xf32> {
  // CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
  // CHECK-NEXT: %[[S:.*]] = tt.splat %[[M]] : f32 -> tensor<128xf32>
  // CHECK-NEXT: tt.return %[[S]]
  %0 = tt.splat %a : f32 -> tensor<128xf32>
  %1 = tt.splat %b : f32 -> tensor<128xf32>
  %2 = arith.mulf %0, %1 : tensor<128xf32>
  tt.return %2 : tensor<128xf32>
}

// CHECK-LABEL: @splat_constant
// CHECK-SAME: (%[[A:[^:]*]]: i32)
tt.func @splat_constant(%a: i32) -> tensor<64xi1> {
  // CHECK: %[[C:.*]] = arith.constant 10 : i32
  // CHECK: %[[M:.*]] = arith.cmpi slt, %[[A]], %[[C]] : i32
  // CHECK-NEXT: %[[S:.*]] = tt.splat %[[M]] : i1 -> tensor<64xi1>
  // CHECK-NEXT: tt.return %[[S]]
  %c = arith.constant dense<10> : tensor<64xi32>
  %0 = tt.splat %a : i32 -> tensor<64xi32>
  %1 = arith.cmpi slt, %0, %c : tensor<64xi32>
  tt.return %1 : tensor<64xi1>
}

// CHECK-LABEL: @broadcast_splat
// CHECK-SAME: (%[[V:[^:]*]]: tensor<1x64xf32>, %[[X:[^:]*]]: f32)
tt.func @broadcast_splat(%v: tensor<1x64xf32>, %x: f32) -> tensor<32x64xf32> {
  // CHECK: %[[S:.*]] = tt.splat %[[X]] : f32 -> tensor<1x64xf32>
  // CHECK-NEXT: %[[A:.*]] = arith.addf %[[V]], %[[S]] : tensor<1x64xf32>
  // CHECK-NEXT: %[[B:.*]] = tt.broadcast %[[A]] : tensor<1x64xf32> -> tensor<32x64xf32>
  // CHECK-NEXT: tt.return %[[B]]
  %0 = tt.broadcast %v : tensor<1x64xf32> -> tensor<32x64xf32>
  %1 = tt.splat %x : f32 -> tensor<32x64xf32>
  %2 = arith.addf %0, %1 : tensor<32x64xf32>
  tt.return %2 : tensor<32x64xf32>
}

// CHECK-LABEL: @broadcast_broadcast
// CHECK-SAME: (%[[V:[^:]*]]: tensor<1x64xf32>, %[[W:[^:]*]]: tensor<1x64xf32>, %[[U:[^:]*]]: tensor<32x1xf32>)
tt.func @broadcast_broadcast(%v: tensor<1x64xf32>, %w: tensor<1x64xf32>, %u: tensor<32x1xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  // Same source shape: one small op, then one broadcast.
  // CHECK: %[[BV:.*]] = tt.broadcast %[[V]]
  // CHECK-NEXT: %[[M:.*]] = arith.maxnumf %[[V]], %[[W]] : tensor<1x64xf32>
  // CHECK-NEXT: %[[B:.*]] = tt.broadcast %[[M]] : tensor<1x64xf32> -> tensor<32x64xf32>
  %0 = tt.broadcast %v : tensor<1x64xf32> -> tensor<32x64xf32>
  %1 = tt.broadcast %w : tensor<1x64xf32> -> tensor<32x64xf32>
  %2 = arith.maxnumf %0, %1 : tensor<32x64xf32>
  // Different source shapes (an outer product): stays as it is.
  // CHECK-NEXT: %[[BU:.*]] = tt.broadcast %[[U]]
  // CHECK-NEXT: %[[P:.*]] = arith.mulf %[[BV]], %[[BU]]
  // CHECK-NEXT: tt.return %[[B]], %[[P]]
  %3 = tt.broadcast %u : tensor<32x1xf32> -> tensor<32x64xf32>
  %4 = arith.mulf %0, %3 : tensor<32x64xf32>
  tt.return %2, %4 : tensor<32x64xf32>, tensor<32x64xf32>
}

// CHECK-LABEL: @shape_canonicalization
// CHECK-SAME: (%[[X:[^:]*]]: i32, %[[V:[^:]*]]: tensor<8xi32>, %[[W:[^:]*]]: tensor<1x1xi32>)
tt.func @shape_canonicalization(%x: i32, %v: tensor<8xi32>, %w: tensor<1x1xi32>) -> (tensor<1x8xi32>, tensor<4x8xi32>, tensor<4x8x1xi32>, tensor<4x8xi32>) {
  // CHECK-DAG: %[[S:.*]] = tt.splat %[[X]] : i32 -> tensor<1x8xi32>
  %0 = tt.splat %x : i32 -> tensor<8xi32>
  %1 = tt.expand_dims %0 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  // CHECK-DAG: %[[E:.*]] = tt.expand_dims %[[V]] {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  // CHECK-DAG: %[[B:.*]] = tt.broadcast %[[E]] : tensor<1x8xi32> -> tensor<4x8xi32>
  %2 = tt.expand_dims %v {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %4 = tt.broadcast %2 : tensor<1x8xi32> -> tensor<4x8xi32>
  // broadcast(broadcast(w)) is one broadcast.
  // CHECK-DAG: %[[BW:.*]] = tt.broadcast %[[W]] : tensor<1x1xi32> -> tensor<4x8xi32>
  %6 = tt.broadcast %w : tensor<1x1xi32> -> tensor<1x8xi32>
  %7 = tt.broadcast %6 : tensor<1x8xi32> -> tensor<4x8xi32>
  // expand_dims(broadcast(x)) becomes broadcast(expand_dims(x)).
  // CHECK-DAG: %[[E2:.*]] = tt.expand_dims %[[E]] {axis = 2 : i32} : tensor<1x8xi32> -> tensor<1x8x1xi32>
  // CHECK-DAG: %[[B2:.*]] = tt.broadcast %[[E2]] : tensor<1x8x1xi32> -> tensor<4x8x1xi32>
  %5 = tt.expand_dims %4 {axis = 2 : i32} : tensor<4x8xi32> -> tensor<4x8x1xi32>
  // CHECK: tt.return %[[S]], %[[B]], %[[B2]], %[[BW]]
  tt.return %1, %4, %5, %7 : tensor<1x8xi32>, tensor<4x8xi32>, tensor<4x8x1xi32>, tensor<4x8xi32>
}
