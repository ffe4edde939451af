// RUN: inline --verify-each
// Nested calls, calls inside loops, functions returning several values, recursion.

// CHECK-LABEL: @kernel
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f32>, %[[N:[^:]*]]: i32)
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  // CHECK: scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = {{.*}})
  // CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[I]] : i32 to f32
  // CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[F]], %[[F]] : f32
  // CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[SQ]] : f32
  // CHECK-NEXT: %[[T:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
  // CHECK-NEXT: %[[U:.*]] = arith.addf %[[T]], %[[NEG]] : f32
  // CHECK-NEXT: scf.yield %[[U]] : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    %f = arith.sitofp %i : i32 to f32
    %sq:2 = tt.call @square_and_neg(%f) : (f32) -> (f32, f32)
    %t = arith.addf %acc, %sq#0 : f32
    %u = arith.addf %t, %sq#1 : f32
    scf.yield %u : f32
  }
  // A call into a recursive cycle is inlined one level; the cycle itself stays.
  // CHECK: arith.subi %[[N]]
  // CHECK-NEXT: tt.call @odd
  %b = tt.call @even(%n) : (i32) -> i1
  tt.store %p, %r : !tt.ptr<f32>
  tt.return
}

tt.func private @square_and_neg(%x: f32) -> (f32, f32) {
  %0 = tt.call @square(%x) : (f32) -> f32
  %1 = arith.negf %0 : f32
  tt.return %0, %1 : f32, f32
}

tt.func private @square(%x: f32) -> f32 {
  %0 = arith.mulf %x, %x : f32
  tt.return %0 : f32
}

// Mutual recursion is left as calls (and kept, since the kernel still calls it).
// CHECK: tt.func private @even
// CHECK: tt.call @odd
// CHECK: tt.func private @odd
// CHECK: tt.call @even
// CHECK-NOT: @square
tt.func private @even(%n: i32) -> i1 {
  %c1 = arith.constant 1 : i32
  %m = arith.subi %n, %c1 : i32
  %r = tt.call @odd(%m) : (i32) -> i1
  tt.return %r : i1
}
tt.func private @odd(%n: i32) -> i1 {
  %c1 = arith.constant 1 : i32
  %m = arith.subi %n, %c1 : i32
  %r = tt.call @even(%m) : (i32) -> i1
  tt.return %r : i1
}
