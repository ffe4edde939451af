// RUN: dce --verify-each
// Unused effect-free ops and unused non-volatile loads go (chains in one sweep);
// anything that writes memory stays.

// CHECK-LABEL: @dead_chain
// CHECK-SAME: (%[[P:[^:]*]]: tensor<16x!tt.ptr<f32>>, %[[X:[^:]*]]: i32)
tt.func @dead_chain(%p: tensor<16x!tt.ptr<f32>>, %x: i32) {
  // CHECK-NEXT: %[[R:.*]] = tt.make_range
  // CHECK-NEXT: %[[L:.*]] = tt.load %[[P]]
  // CHECK-NEXT: %[[Q:.*]] = tt.addptr %[[P]], %[[R]]
  // CHECK-NEXT: tt.store %[[Q]], %[[L]]
  // CHECK-NEXT: tt.atomic_rmw
  // CHECK-NEXT: tt.return
  %c1 = arith.constant 1 : i32
  %0 = arith.addi %x, %c1 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = tt.splat %1 : i32 -> tensor<16xi32>
  %3 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %l = tt.load %p : tensor<16x!tt.ptr<f32>>
  %unused = tt.load %p : tensor<16x!tt.ptr<f32>>
  %q = tt.addptr %p, %3 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  tt.store %q, %l : tensor<16x!tt.ptr<f32>>
  %old = "tt.atomic_rmw"(%p, %l) {atomic_rmw_op = 5 : i32, sem = 4 : i32, scope = 1 : i32} : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  tt.return
}

// CHECK-LABEL: @dead_loops
tt.func @dead_loops(%n: i32, %p: !tt.ptr<f32>, %x: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: scf.for
  // CHECK: tt.store
  // CHECK-NOT: scf.for
  // CHECK: tt.return
  scf.for %i = %c0 to %n step %c1 : i32 {
    tt.store %p, %x : !tt.ptr<f32>
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %s = arith.mulf %a, %a : f32
    scf.yield %s : f32
  }
  tt.return
}
