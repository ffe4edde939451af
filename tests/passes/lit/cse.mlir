// RUN: cse --verify-each
// Value numbering over effect-free ops, scoped by dominance.

// CHECK-LABEL: @simple
// CHECK-SAME: (%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32)
tt.func @simple(%x: i32, %y: i32) -> (i32, i32, i32, i32, tensor<16xi32>, tensor<16xi32>) {
  // CHECK: %[[C:.*]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[A:.*]] = arith.addi %[[X]], %[[Y]] : i32
  // CHECK-NEXT: %[[M:.*]] = arith.muli %[[A]], %[[C]] : i32
  // CHECK-NEXT: %[[S:.*]] = arith.subi %[[X]], %[[Y]] : i32
  // CHECK-NEXT: %[[S2:.*]] = arith.subi %[[Y]], %[[X]] : i32
  // CHECK-NEXT: %[[R:.*]] = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  // CHECK-NEXT: tt.return %[[M]], %[[M]], %[[S]], %[[S2]], %[[R]], %[[R]]
  %c4 = arith.constant 4 : i32
  %c4b = arith.constant 4 : i32
  %0 = arith.addi %x, %y : i32
  %1 = arith.muli %0, %c4 : i32
  %2 = arith.addi %y, %x : i32
  %3 = arith.muli %2, %c4b : i32
  %4 = arith.subi %x, %y : i32
  %5 = arith.subi %y, %x : i32
  %6 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %7 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  tt.return %1, %3, %4, %5, %6, %7 : i32, i32, i32, i32, tensor<16xi32>, tensor<16xi32>
}

// CHECK-LABEL: @attributes_matter
tt.func @attributes_matter() -> (i32, i32, tensor<8xi32>, tensor<8xi32>) {
  // CHECK: tt.get_program_id x
  // CHECK-NEXT: tt.get_program_id y
  // CHECK-NEXT: tt.make_range {end = 8 : i32, start = 0 : i32}
  // CHECK-NEXT: tt.make_range {end = 9 : i32, start = 1 : i32}
  %0 = tt.get_program_id x : i32
  %1 = tt.get_program_id y : i32
  %2 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %3 = tt.make_range {end = 9 : i32, start = 1 : i32} : tensor<8xi32>
  tt.return %0, %1, %2, %3 : i32, i32, tensor<8xi32>, tensor<8xi32>
}

// CHECK-LABEL: @regions
// CHECK-SAME: (%[[C:[^:]*]]: i1, %[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32)
tt.func @regions(%c: i1, %x: i32, %y: i32) -> (i32, i32) {
  // CHECK: %[[A:.*]] = arith.addi %[[X]], %[[Y]]
  %0 = arith.addi %x, %y : i32
  // An op in a nested block is replaced by the dominating one outside;
  // ops of sibling branches do not replace each other.
  // CHECK: scf.if %[[C]]
  // CHECK-NEXT: %[[M:.*]] = arith.muli %[[X]], %[[Y]]
  // CHECK-NEXT: %[[MM:.*]] = arith.muli %[[M]], %[[A]]
  // CHECK-NEXT: scf.yield %[[MM]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: %[[M2:.*]] = arith.muli %[[X]], %[[Y]]
  // CHECK-NEXT: scf.yield %[[M2]]
  %1 = scf.if %c -> (i32) {
    %a = arith.addi %x, %y : i32
    %m = arith.muli %x, %y : i32
    %mm = arith.muli %m, %a : i32
    scf.yield %mm : i32
  } else {
    %m = arith.muli %x, %y : i32
    scf.yield %m : i32
  }
  // An op after the if is not replaced by one inside it.
  // CHECK: %[[M3:.*]] = arith.muli %[[X]], %[[Y]]
  // CHECK-NEXT: tt.return %{{.*}}, %[[M3]]
  %2 = arith.muli %x, %y : i32
  tt.return %1, %2 : i32, i32
}

// CHECK-LABEL: @loads
// CHECK-SAME: (%[[P:[^:]*]]: tensor<32x!tt.ptr<f32>>, %[[V:[^:]*]]: tensor<32xf32>)
tt.func @loads(%p: tensor<32x!tt.ptr<f32>>, %v: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
  // Two loads with no store between them merge; a store in between stops that, and
  // volatile loads never merge.
  // CHECK: %[[L0:.*]] = tt.load %[[P]]
  // CHECK-NEXT: tt.store %[[P]], %[[V]]
  // CHECK-NEXT: %[[L2:.*]] = tt.load %[[P]]
  // CHECK-NEXT: %[[L3:.*]] = tt.load %[[P]] {isVolatile = true}
  // CHECK-NEXT: %[[L4:.*]] = tt.load %[[P]] {isVolatile = true}
  // CHECK-NEXT: tt.return %[[L0]], %[[L0]], %[[L2]], %[[L4]]
  %0 = tt.load %p : tensor<32x!tt.ptr<f32>>
  %1 = tt.load %p : tensor<32x!tt.ptr<f32>>
  tt.store %p, %v : tensor<32x!tt.ptr<f32>>
  %2 = tt.load %p : tensor<32x!tt.ptr<f32>>
  %3 = tt.load %p {isVolatile = true} : tensor<32x!tt.ptr<f32>>
  %4 = tt.load %p {isVolatile = true} : tensor<32x!tt.ptr<f32>>
  tt.return %0, %1, %2, %4 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
}

// CHECK-LABEL: @reductions
tt.func @reductions(%t: tensor<64xf32>) -> (f32, f32) {
  // Reductions with structurally equal bodies merge.
  // CHECK: %[[R:.*]] = "tt.reduce"
  // CHECK-NOT: "tt.reduce"
  // CHECK: tt.return %[[R]], %[[R]]
  %0 = "tt.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) {axis = 0 : i32} : (tensor<64xf32>) -> f32
  %1 = "tt.reduce"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) {axis = 0 : i32} : (tensor<64xf32>) -> f32
  tt.return %0, %1 : f32, f32
}
