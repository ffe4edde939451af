// RUN: canonicalize --verify-each
// Structured control flow: constant conditions, trivial trip counts, dead or invariant
// loop-carried values, identical branch results.

// CHECK-LABEL: @if_constant
// CHECK-SAME: (%[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32, %[[P:[^:]*]]: !tt.ptr<i32>)
tt.func @if_constant(%a: i32, %b: i32, %p: !tt.ptr<i32>) -> i32 {
  %true = arith.constant true
  %false = arith.constant false
  // CHECK-NOT: scf.if
  // CHECK: %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
  // CHECK-NEXT: tt.store %[[P]], %[[S]] : !tt.ptr<i32>
  // CHECK-NEXT: tt.return %[[S]] : i32
  %0 = scf.if %true -> (i32) {
    %s = arith.addi %a, %b : i32
    scf.yield %s : i32
  } else {
    %d = arith.subi %a, %b : i32
    scf.yield %d : i32
  }
  scf.if %false {
    tt.store %p, %a : !tt.ptr<i32>
  }
  scf.if %true {
    tt.store %p, %0 : !tt.ptr<i32>
  }
  tt.return %0 : i32
}

// CHECK-LABEL: @if_results
// CHECK-SAME: (%[[C:[^:]*]]: i1, %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32)
tt.func @if_results(%c: i1, %a: i32, %b: i32) -> (i32, i32) {
  // The first result is %a in both branches, the third is unused: only one stays.
  // CHECK: %[[R:.*]] = scf.if %[[C]] -> (i32) {
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: scf.yield %{{.*}} : i32
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %[[B]] : i32
  // CHECK-NEXT: }
  // CHECK-NEXT: tt.return %[[A]], %[[R]]
  %0:3 = scf.if %c -> (i32, i32, i32) {
    %s = arith.addi %a, %b : i32
    scf.yield %a, %s, %s : i32, i32, i32
  } else {
    scf.yield %a, %b, %b : i32, i32, i32
  }
  tt.return %0#0, %0#1 : i32, i32
}

// CHECK-LABEL: @for_trip_counts
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[P:[^:]*]]: !tt.ptr<f32>)
tt.func @for_trip_counts(%x: f32, %p: !tt.ptr<f32>) -> (f32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  // Zero trips: the result is the init.
  %0 = scf.for %i = %c10 to %c0 step %c1 iter_args(%acc = %x) -> (f32) : i32 {
    %y = arith.addf %acc, %acc : f32
    scf.yield %y : f32
  }
  // One trip: the body runs once, inline, with iv = lb.
  // CHECK-NOT: scf.for
  // CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[X]] : f32
  // CHECK-NEXT: tt.store %[[P]], %[[Y]] : !tt.ptr<f32>
  // CHECK-NEXT: tt.return %[[X]], %[[Y]]
  %1 = scf.for %i = %c0 to %c10 step %c10 iter_args(%acc = %x) -> (f32) : i32 {
    %y = arith.addf %acc, %acc : f32
    tt.store %p, %y : !tt.ptr<f32>
    scf.yield %y : f32
  }
  tt.return %0, %1 : f32, f32
}

// CHECK-LABEL: @for_iter_args
// CHECK-SAME: (%[[N:[^:]*]]: i32, %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f32)
tt.func @for_iter_args(%n: i32, %x: f32, %y: f32, %z: f32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // %a passes through, %b re-yields its invariant init, %d is never read: only %c stays.
  // CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (f32) : i32 {
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
  // CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[Y]] : f32
  // CHECK-NEXT: scf.yield %[[T]] : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: tt.return %[[X]], %[[Y]], %[[R]]
  %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y, %c = %z, %d = %z) -> (f32, f32, f32, f32) : i32 {
    %s = arith.addf %c, %a : f32
    %t = arith.addf %s, %b : f32
    %u = arith.mulf %d, %d : f32
    scf.yield %a, %y, %t, %u : f32, f32, f32, f32
  }
  tt.return %r#0, %r#1, %r#2 : f32, f32, f32
}

// CHECK-LABEL: @dead_loop
tt.func @dead_loop(%n: i32, %x: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // A loop with effect-free body and unused results disappears.
  // CHECK-NOT: scf.for
  // CHECK: tt.return
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %s = arith.mulf %a, %a : f32
    scf.yield %s : f32
  }
  tt.return
}

// CHECK-LABEL: @dead_through_branch
tt.func @dead_through_branch(%n: i32, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // %b flows only through the branch back into its own yield (a fused loop's prologue
  // value that nothing reads any more): it goes, and so does the branch's result; %d is
  // stored in the branch, so it stays.
  // CHECK: scf.for {{.*}} iter_args(%[[D:.*]] = %c0_i32) -> (i32)
  // CHECK: scf.if
  // CHECK: tt.store
  // CHECK-NOT: scf.if
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%b = %c0, %d = %c0) -> (i32, i32) : i32 {
    %first = arith.cmpi eq, %i, %c0 : i32
    %v:2 = scf.if %first -> (i32, i32) {
      %m = arith.muli %i, %n : i32
      scf.yield %m, %m : i32, i32
    } else {
      %b1 = arith.addi %b, %c1 : i32
      scf.yield %b1, %d : i32, i32
    }
    scf.if %first {
      tt.store %p, %v#1 : !tt.ptr<i32>
    }
    scf.yield %v#0, %v#1 : i32, i32
  }
  tt.return
}
