// RUN: canonicalize --verify-each
// Algebraic identities. Integer ones fold freely; float ones only where exact for NaN,
// infinities and signed zeros (x + 0.0 is not x when x is -0.0).

// CHECK-LABEL: @int_identities
// CHECK-SAME: (%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32)
tt.func @int_identities(%x: i32, %y: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm1 = arith.constant -1 : i32
  // CHECK: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NOT: arith.addi
  // CHECK-NOT: arith.muli
  // CHECK-NOT: arith.subi
  // CHECK-NOT: arith.andi
  // CHECK-NOT: arith.ori
  // CHECK-NOT: arith.xori
  // CHECK-NOT: arith.divsi
  %0 = arith.addi %c0, %x : i32
  %1 = arith.muli %x, %c1 : i32
  %2 = arith.muli %c0, %x : i32
  %3 = arith.subi %x, %x : i32
  %4 = arith.andi %x, %cm1 : i32
  %5 = arith.ori %x, %c0 : i32
  %6 = arith.xori %x, %x : i32
  %7 = arith.divsi %x, %c1 : i32
  %s = arith.subi %x, %y : i32
  %8 = arith.addi %s, %y : i32
  %a = arith.addi %x, %y : i32
  %9 = arith.subi %a, %x : i32
  // CHECK: tt.return %[[X]], %[[X]], %[[Z]], %[[Z]], %[[X]], %[[X]], %[[Z]], %[[X]], %[[X]], %[[Y]]
  tt.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// CHECK-LABEL: @constant_chains
tt.func @constant_chains(%x: i32) -> (i32, i32) {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
  // CHECK-DAG: %[[C15:.*]] = arith.constant 15 : i32
  // CHECK: %[[A:.*]] = arith.addi %{{.*}}, %[[C8]] : i32
  // CHECK: %[[M:.*]] = arith.muli %{{.*}}, %[[C15]] : i32
  // CHECK: tt.return %[[A]], %[[M]]
  %0 = arith.addi %c3, %x : i32
  %1 = arith.addi %0, %c5 : i32
  %2 = arith.muli %x, %c3 : i32
  %3 = arith.muli %c5, %2 : i32
  tt.return %1, %3 : i32, i32
}

// CHECK-LABEL: @float_identities
// CHECK-SAME: (%[[X:[^:]*]]: f32)
tt.func @float_identities(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32) {
  %zero = arith.constant 0.0 : f32
  %nzero = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  // x + 0.0 must stay: (-0.0) + 0.0 is +0.0. x * 0.0 must stay: NaN, inf, sign.
  // CHECK: %[[ADD:.*]] = arith.addf %[[X]], %{{.*}} : f32
  // CHECK: %[[MUL0:.*]] = arith.mulf %[[X]], %{{.*}} : f32
  // CHECK-NOT: arith.mulf
  // CHECK-NOT: arith.divf
  // CHECK-NOT: arith.subf
  // CHECK-NOT: arith.negf
  // CHECK: tt.return %[[ADD]], %[[MUL0]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
  %0 = arith.addf %x, %zero : f32
  %1 = arith.mulf %x, %zero : f32
  %2 = arith.mulf %one, %x : f32
  %3 = arith.divf %x, %one : f32
  %4 = arith.addf %x, %nzero : f32
  %5 = arith.subf %x, %zero : f32
  %n = arith.negf %x : f32
  %6 = arith.negf %n : f32
  tt.return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f32, f32, f32, f32
}

// CHECK-LABEL: @select_and_compare
// CHECK-SAME: (%[[C:[^:]*]]: i1, %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32)
tt.func @select_and_compare(%c: i1, %a: i32, %b: i32) -> (i32, i32, i32, i1, i1, i1, i1) {
  %true = arith.constant true
  %false = arith.constant false
  // CHECK: %[[T:.*]] = arith.constant true
  // CHECK-NOT: arith.constant false
  // CHECK: %[[NOT:.*]] = arith.xori %[[C]], %[[T]] : i1
  // CHECK: %[[GE:.*]] = arith.cmpi sge, %[[A]], %[[B]] : i32
  // CHECK-NOT: arith.select
  // CHECK: tt.return %[[A]], %[[B]], %[[A]], %[[C]], %[[NOT]], %[[T]], %[[GE]]
  %0 = arith.select %true, %a, %b : i32
  %1 = arith.select %false, %a, %b : i32
  %2 = arith.select %c, %a, %a : i32
  %3 = arith.select %c, %true, %false : i1
  %4 = arith.select %c, %false, %true : i1
  %5 = arith.cmpi sle, %a, %a : i32
  %lt = arith.cmpi slt, %a, %b : i32
  %6 = arith.xori %lt, %true : i1
  tt.return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i32, i1, i1, i1, i1
}

// CHECK-LABEL: @casts
// CHECK-SAME: (%[[X:[^:]*]]: i8, %[[F:[^:]*]]: f16)
tt.func @casts(%x: i8, %f: f16) -> (i64, i8, i16, f16, i32) {
  // CHECK: %[[E:.*]] = arith.extsi %[[X]] : i8 to i64
  // CHECK: %[[E16:.*]] = arith.extsi %[[X]] : i8 to i16
  // CHECK-NOT: arith.extf
  // CHECK-NOT: arith.truncf
  // CHECK: %[[CMP:.*]] = arith.cmpi sgt
  // CHECK: tt.return %[[E]], %[[X]], %[[E16]], %[[F]], %{{.*}}
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.extsi %0 : i32 to i64
  %2 = arith.trunci %0 : i32 to i8
  %3 = arith.trunci %0 : i32 to i16
  %4 = arith.extf %f : f16 to f32
  %5 = arith.truncf %4 : f32 to f16
  // Constant on the left of a compare moves right with the predicate mirrored.
  %c5 = arith.constant 5 : i32
  %6 = arith.cmpi slt, %c5, %0 : i32
  %7 = arith.extui %6 : i1 to i32
  tt.return %1, %2, %3, %5, %7 : i64, i8, i16, f16, i32
}
