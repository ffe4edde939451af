// RUN: rewrite-tensor-descriptor-to-pointer --split-input-file --verify-each
// Descriptors become pointer tensors with every dim bounds-checked. A descriptor parameter
// becomes (base, padding_nan) ahead of the shape and stride parameters that follow it, and
// its last stride becomes the constant 1.

// CHECK-LABEL: tt.func public @load_param
// CHECK-SAME: (%[[BASE:[^:]*]]: !tt.ptr<f16>, %[[NAN:[^:]*]]: i1, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[SM:[^:]*]]: i64, %{{[^:]*}}: i64, %[[I:[^:]*]]: i32)
// CHECK-NOT: tensordesc
// CHECK: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[I64:.*]] = arith.extsi %[[I]] : i32 to i64
// CHECK: tt.splat %[[BASE]] : !tt.ptr<f16> -> tensor<8x16x!tt.ptr<f16>>
// CHECK: tt.splat %[[I64]] : i64 -> tensor<8xi64>
// CHECK: tt.splat %[[SM]] : i64 -> tensor<8x16xi64>
// CHECK: tt.splat %[[M64]] : i64 -> tensor<8x16xi64>
// CHECK: %[[ONE:.*]] = tt.splat %c1_i64 : i64 -> tensor<8x16xi64>
// CHECK: %[[P:.*]] = tt.addptr
// CHECK: tt.splat %[[N64]] : i64 -> tensor<8x16xi64>
// CHECK: arith.andi
// CHECK-NEXT: %[[MASK:.*]] = arith.andi
// CHECK: %[[PAD:.*]] = arith.select %[[NAN]], %{{.*}}, %{{.*}} : f16
// CHECK: %[[OTHER:.*]] = tt.splat %[[PAD]] : f16 -> tensor<8x16xf16>
// CHECK: tt.load %[[P]], %[[MASK]], %[[OTHER]] : tensor<8x16x!tt.ptr<f16>>
tt.func public @load_param(%d: !tt.tensordesc<tensor<8x16xf16>>, %m: i32, %n: i32, %sm: i64, %sn: i64, %i: i32) -> tensor<8x16xf16> {
  %c0 = arith.constant 0 : i32
  %v = tt.descriptor_load %d[%i, %c0] : !tt.tensordesc<tensor<8x16xf16>> -> tensor<8x16xf16>
  tt.return %v : tensor<8x16xf16>
}

// -----

// A descriptor made in the kernel: its padding attribute becomes a constant; stores and
// reductions are masked on every dim; int loads pad with zero.
// CHECK-LABEL: @made_in_kernel
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: %[[NAN:.*]] = arith.constant true
// CHECK: %[[V:.*]] = tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x!tt.ptr<f32>>
// CHECK: tt.store %{{.*}}, %[[V]], %{{.*}} : tensor<16x!tt.ptr<f32>>
// CHECK: "tt.atomic_rmw"(%{{.*}}, %[[V]], %{{.*}}) {atomic_rmw_op = 5 : i32, scope = 1 : i32, sem = 1 : i32} : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<16xi32>
// CHECK: tt.load %{{.*}}, %{{.*}}, %[[ZERO]] : tensor<16x!tt.ptr<i32>>
tt.func @made_in_kernel(%a: !tt.ptr<f32>, %b: !tt.ptr<i32>, %n: i32, %i: i32) -> tensor<16xi32> {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%n], [%c1] {padding = 2 : i32} : <f32>, <tensor<16xf32>>
  %e = tt.make_tensor_descriptor %b, [%n], [%c1] : <i32>, <tensor<16xi32>>
  %v = tt.descriptor_load %d[%i] : !tt.tensordesc<tensor<16xf32>> -> tensor<16xf32>
  tt.descriptor_store %d[%i], %v : !tt.tensordesc<tensor<16xf32>>, tensor<16xf32>
  tt.descriptor_reduce add, %d[%i], %v : !tt.tensordesc<tensor<16xf32>>, tensor<16xf32>
  %w = tt.descriptor_load %e[%i] : !tt.tensordesc<tensor<16xi32>> -> tensor<16xi32>
  tt.return %w : tensor<16xi32>
}

// -----

// Gather: rows from the index tensor, columns y.. ; both bounds-checked.
// CHECK-LABEL: @gather
// CHECK: %[[ROWS:.*]] = arith.extsi %{{.*}} : tensor<8xi32> to tensor<8xi64>
// CHECK: tt.expand_dims %[[ROWS]] {axis = 1 : i32} : tensor<8xi64> -> tensor<8x1xi64>
// CHECK: tt.make_range {end = 32 : i32, start = 0 : i32}
// CHECK-COUNT-2: arith.cmpi slt
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32x!tt.ptr<bf16>>
tt.func @gather(%a: !tt.ptr<bf16>, %m: i32, %n: i32, %s: i64, %x: tensor<8xi32>, %y: i32) -> tensor<8x32xbf16> {
  %c1 = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%m, %n], [%s, %c1] : <bf16>, <tensor<1x32xbf16>>
  %g = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<tensor<1x32xbf16>>, tensor<8xi32>, i32) -> tensor<8x32xbf16>
  tt.return %g : tensor<8x32xbf16>
}
