// RUN: rewrite-tensor-pointer --split-input-file --verify-each
// Block pointers become tensors of pointers: per dim, splat(offset) + range (i64), expanded
// and broadcast, scaled by the stride; checked dims add 0 <= off < shape to the mask, and a
// padding becomes the load's `other`.

// CHECK-LABEL: @load_2d
// CHECK-SAME: (%[[BASE:[^:]*]]: !tt.ptr<f16>, %[[M:[^:]*]]: i64, %[[N:[^:]*]]: i64, %[[SM:[^:]*]]: i64, %[[O:[^:]*]]: i32)
// CHECK-NOT: tt.make_tensor_ptr
// CHECK: %[[O64:.*]] = arith.extsi %[[O]] : i32 to i64
// CHECK: %[[P0:.*]] = tt.splat %[[BASE]] : !tt.ptr<f16> -> tensor<4x8x!tt.ptr<f16>>
// CHECK: %[[R0:.*]] = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
// CHECK: %[[R0E:.*]] = arith.extsi %[[R0]] : tensor<4xi32> to tensor<4xi64>
// CHECK: %[[S0:.*]] = tt.splat %[[O64]] : i64 -> tensor<4xi64>
// CHECK: %[[A0:.*]] = arith.addi %[[S0]], %[[R0E]] : tensor<4xi64>
// CHECK: %[[E0:.*]] = tt.expand_dims %[[A0]] {axis = 1 : i32} : tensor<4xi64> -> tensor<4x1xi64>
// CHECK: %[[B0:.*]] = tt.broadcast %[[E0]] : tensor<4x1xi64> -> tensor<4x8xi64>
// CHECK: %[[ST0:.*]] = tt.splat %[[SM]] : i64 -> tensor<4x8xi64>
// CHECK: %[[MUL0:.*]] = arith.muli %[[B0]], %[[ST0]] : tensor<4x8xi64>
// CHECK: %[[P1:.*]] = tt.addptr %[[P0]], %[[MUL0]]
// CHECK: %[[GE0:.*]] = arith.cmpi sge, %[[B0]], %{{.*}} : tensor<4x8xi64>
// CHECK: %[[LIM0:.*]] = tt.splat %[[M]] : i64 -> tensor<4x8xi64>
// CHECK: %[[LT0:.*]] = arith.cmpi slt, %[[B0]], %[[LIM0]] : tensor<4x8xi64>
// CHECK: %[[IN0:.*]] = arith.andi %[[GE0]], %[[LT0]] : tensor<4x8xi1>
// CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<8xi64> -> tensor<1x8xi64>
// CHECK: %[[P2:.*]] = tt.addptr %[[P1]]
// CHECK: %[[IN1:.*]] = arith.andi
// CHECK: %[[MASK:.*]] = arith.andi %[[IN0]], %[[IN1]] : tensor<4x8xi1>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf16>
// CHECK: %[[V:.*]] = tt.load %[[P2]], %[[MASK]], %[[ZERO]] : tensor<4x8x!tt.ptr<f16>>
// CHECK: tt.return %[[V]]
tt.func @load_2d(%base: !tt.ptr<f16>, %m: i64, %n: i64, %sm: i64, %o: i32) -> tensor<4x8xf16> {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %p = tt.make_tensor_ptr %base, [%m, %n], [%sm, %c1], [%o, %c0] {order = array<i32: 1, 0>} : <tensor<4x8xf16>>
  %v = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf16>>
  tt.return %v : tensor<4x8xf16>
}

// -----

// NaN padding, one checked dim; an unchecked load has no mask; a store keeps its cache
// modifier and masks only its checked dim.
// CHECK-LABEL: @nan_and_store
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<16xf32>
// CHECK: %[[V:.*]] = tt.load %{{.*}}, %{{.*}}, %[[NAN]] : tensor<16x!tt.ptr<f32>>
// CHECK: %[[W:.*]] = tt.load %{{[^,]*}} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %[[V]], %{{.*}} {cache = 3 : i32} : tensor<16x!tt.ptr<f32>>
// CHECK-NOT: boundaryCheck
tt.func @nan_and_store(%base: !tt.ptr<f32>, %n: i64) -> tensor<16xf32> {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %p = tt.make_tensor_ptr %base, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<16xf32>>
  %v = tt.load %p {boundaryCheck = array<i32: 0>, padding = 2 : i32} : !tt.ptr<tensor<16xf32>>
  %w = tt.load %p : !tt.ptr<tensor<16xf32>>
  tt.store %p, %v {boundaryCheck = array<i32: 0>, cache = 3 : i32} : !tt.ptr<tensor<16xf32>>
  tt.return %w : tensor<16xf32>
}

// -----

// A block pointer advanced in a loop is carried as its components (base, shape, strides,
// offsets); the advance adds to the i64 offsets.
// CHECK-LABEL: @advance_in_loop
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{[^,]*}}, %[[BASE:[^ ]*]] = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %[[OFF:[^ ]*]] = %{{[^)]*}}) -> (tensor<16xf32>, !tt.ptr<f32>, i64, i64, i64)
// CHECK: tt.splat %[[BASE]]
// CHECK: tt.splat %[[OFF]] : i64 -> tensor<16xi64>
// CHECK: %[[STEP:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFF]], %[[STEP]] : i64
// CHECK: scf.yield %{{.*}}, %[[BASE]], %{{.*}}, %{{.*}}, %[[NEXT]] : tensor<16xf32>, !tt.ptr<f32>, i64, i64, i64
tt.func @advance_in_loop(%base: !tt.ptr<f32>, %n: i64, %steps: i32) -> tensor<16xf32> {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %p = tt.make_tensor_ptr %base, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<16xf32>>
  %r:2 = scf.for %i = %c0 to %steps step %c1_i32 iter_args(%acc = %zero, %q = %p) -> (tensor<16xf32>, !tt.ptr<tensor<16xf32>>) : i32 {
    %v = tt.load %q {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<16xf32>>
    %s = arith.addf %acc, %v : tensor<16xf32>
    %q2 = tt.advance %q, [%c16] : <tensor<16xf32>>
    scf.yield %s, %q2 : tensor<16xf32>, !tt.ptr<tensor<16xf32>>
  }
  tt.return %r#0 : tensor<16xf32>
}

// -----

// scf.if choosing between two block pointers yields their components.
// CHECK-LABEL: @select_block_ptr
// CHECK: %[[IF:.*]]:4 = scf.if %{{.*}} -> (!tt.ptr<i32>, i64, i64, i64) {
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !tt.ptr<i32>, i64, i64, i64
// CHECK: } else {
// CHECK: tt.splat %[[IF]]#0 : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
// CHECK-NOT: !tt.ptr<tensor
tt.func @select_block_ptr(%a: !tt.ptr<i32>, %b: !tt.ptr<i32>, %c: i1) -> tensor<8xi32> {
  %c1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  %c0 = arith.constant 0 : i32
  %pa = tt.make_tensor_ptr %a, [%c8], [%c1], [%c0] {order = array<i32: 0>} : <tensor<8xi32>>
  %pb = tt.make_tensor_ptr %b, [%c8], [%c1], [%c0] {order = array<i32: 0>} : <tensor<8xi32>>
  %p = scf.if %c -> (!tt.ptr<tensor<8xi32>>) {
    scf.yield %pa : !tt.ptr<tensor<8xi32>>
  } else {
    scf.yield %pb : !tt.ptr<tensor<8xi32>>
  }
  %v = tt.load %p : !tt.ptr<tensor<8xi32>>
  tt.return %v : tensor<8xi32>
}

// -----

// scf.while carries the components through both regions.
// CHECK-LABEL: @advance_in_while
// CHECK: scf.while (%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %{{[^)]*}}) : (i32, !tt.ptr<f32>, i64, i64, i64) -> (i32, !tt.ptr<f32>, i64, i64, i64)
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32, !tt.ptr<f32>, i64, i64, i64
// CHECK: ^bb0(%{{[^:]*}}: i32, %[[BASE:[^:]*]]: !tt.ptr<f32>, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[OFF:[^:]*]]: i64):
// CHECK: tt.splat %[[OFF]] : i64 -> tensor<16xi64>
// CHECK: tt.store
// CHECK: arith.addi %[[OFF]], %{{.*}} : i64
// CHECK-NOT: !tt.ptr<tensor
tt.func @advance_in_while(%base: !tt.ptr<f32>, %n: i64, %steps: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %v = arith.constant dense<1.0> : tensor<16xf32>
  %p = tt.make_tensor_ptr %base, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<16xf32>>
  %r:2 = scf.while (%i = %c0, %q = %p) : (i32, !tt.ptr<tensor<16xf32>>) -> (i32, !tt.ptr<tensor<16xf32>>) {
    %go = arith.cmpi slt, %i, %steps : i32
    scf.condition(%go) %i, %q : i32, !tt.ptr<tensor<16xf32>>
  } do {
  ^bb0(%j: i32, %q1: !tt.ptr<tensor<16xf32>>):
    tt.store %q1, %v {boundaryCheck = array<i32: 0>} : !tt.ptr<tensor<16xf32>>
    %q2 = tt.advance %q1, [%c16] : <tensor<16xf32>>
    %j2 = arith.addi %j, %c1_i32 : i32
    scf.yield %j2, %q2 : i32, !tt.ptr<tensor<16xf32>>
  }
  tt.return
}
