// RUN: licm --verify-each
// Loop-invariant, speculatable ops move before the loop; memory ops and possibly-trapping
// divisions stay.

// CHECK-LABEL: @matmul_like
// CHECK-SAME: (%[[A:[^:]*]]: !tt.ptr<f32>, %[[N:[^:]*]]: i32, %[[K:[^:]*]]: i32)
tt.func @matmul_like(%a: !tt.ptr<f32>, %n: i32, %k: i32) -> tensor<32xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  // CHECK: %[[R:.*]] = tt.make_range
  // CHECK-NEXT: %[[S:.*]] = tt.splat %[[A]]
  // CHECK-NEXT: %[[K2:.*]] = arith.muli %[[K]], %[[K]]
  // CHECK-NEXT: %[[KS:.*]] = tt.splat %[[K2]]
  // CHECK-NEXT: scf.for %[[I:[^ ]*]] =
  // CHECK-NEXT: %[[IS:.*]] = tt.splat %[[I]]
  // CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[IS]], %[[R]]
  // CHECK-NEXT: %[[OFF2:.*]] = arith.addi %[[OFF]], %[[KS]]
  // CHECK-NEXT: %[[P:.*]] = tt.addptr %[[S]], %[[OFF2]]
  // CHECK-NEXT: %[[L:.*]] = tt.load %[[P]]
  // CHECK-NEXT: arith.addf
  // CHECK-NEXT: arith.divsi %[[K]], %[[N]]
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: scf.yield
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<32xf32>) : i32 {
    %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %base = tt.splat %a : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %isp = tt.splat %i : i32 -> tensor<32xi32>
    %off = arith.addi %isp, %range : tensor<32xi32>
    %kk = arith.muli %k, %k : i32
    %ksp = tt.splat %kk : i32 -> tensor<32xi32>
    %off2 = arith.addi %off, %ksp : tensor<32xi32>
    %ptr = tt.addptr %base, %off2 : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    %x = tt.load %ptr : tensor<32x!tt.ptr<f32>>
    %sum = arith.addf %acc, %x : tensor<32xf32>
    // May divide by zero when the loop would not have run: stays.
    %q = arith.divsi %k, %n : i32
    tt.store %ptr, %sum : tensor<32x!tt.ptr<f32>>
    scf.yield %sum : tensor<32xf32>
  }
  tt.return %r : tensor<32xf32>
}

// CHECK-LABEL: @nested
// CHECK-SAME: (%[[N:[^:]*]]: i32, %[[X:[^:]*]]: i32, %[[P:[^:]*]]: !tt.ptr<i32>)
tt.func @nested(%n: i32, %x: i32, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // Invariant in both loops: climbs out of the nest. Invariant only in the inner one:
  // stops between the loops.
  // CHECK: %[[XX:.*]] = arith.muli %[[X]], %[[X]]
  // CHECK-NEXT: scf.for %[[I:[^ ]*]] =
  // CHECK-NEXT: %[[IX:.*]] = arith.addi %[[I]], %[[XX]]
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: tt.store %[[P]], %[[IX]]
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %n step %c1 : i32 {
      %xx = arith.muli %x, %x : i32
      %ix = arith.addi %i, %xx : i32
      tt.store %p, %ix : !tt.ptr<i32>
    }
  }
  tt.return
}

// CHECK-LABEL: @while_loop
tt.func @while_loop(%x: i32, %y: i32) -> i32 {
  // CHECK: arith.muli
  // CHECK-NEXT: scf.while
  %r = scf.while (%a = %x) : (i32) -> (i32) {
    %m = arith.muli %y, %y : i32
    %c = arith.cmpi slt, %a, %m : i32
    scf.condition(%c) %a : i32
  } do {
  ^bb0(%b: i32):
    %n = arith.addi %b, %y : i32
    scf.yield %n : i32
  }
  tt.return %r : i32
}
