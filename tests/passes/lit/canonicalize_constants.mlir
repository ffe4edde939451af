// RUN: canonicalize --split-input-file --verify-each
// Constants are uniqued and hoisted to the top of their function, but stay inside the
// combine regions of tt.reduce/tt.scan (those are lowered on their own).

// CHECK-LABEL: @hoist_and_unique
tt.func @hoist_and_unique(%n: i32, %p: !tt.ptr<i32>) {
  // CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : i32
  // CHECK-NEXT: scf.for %[[I:[^ ]*]] = %[[C0]] to %{{.*}} step %[[C1]]
  // CHECK-NEXT: %[[A:.*]] = arith.addi %[[I]], %[[C5]] : i32
  // CHECK-NEXT: %[[B:.*]] = arith.muli %[[A]], %[[C5]] : i32
  // CHECK-NEXT: tt.store %{{.*}}, %[[B]]
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %c5 = arith.constant 5 : i32
    %a = arith.addi %i, %c5 : i32
    %c5b = arith.constant 5 : i32
    %b = arith.muli %a, %c5b : i32
    tt.store %p, %b : !tt.ptr<i32>
  }
  tt.return
}

// -----

// CHECK-LABEL: @reduce_scope
tt.func @reduce_scope(%t: tensor<16xi32>) -> i32 {
  // CHECK-NOT: arith.constant
  // CHECK: "tt.reduce"
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: arith.constant 3 : i32
  // CHECK-NEXT: arith.muli
  // CHECK-NEXT: arith.addi
  %0 = "tt.reduce"(%t) ({
  ^bb0(%a: i32, %b: i32):
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %m = arith.muli %b, %c3 : i32
    %x = arith.muli %m, %c1 : i32
    %s = arith.addi %a, %x : i32
    tt.reduce.return %s : i32
  }) {axis = 0 : i32} : (tensor<16xi32>) -> i32
  tt.return %0 : i32
}
