// RUN: tritium-opt %s -p 'tritongpu-fuse-nested-loops,canonicalize,cse' --split-input-file | FileCheck %s

// A flatten-marked nest with a prologue (the row's base), an inner reduction and an
// epilogue (its store): versioned on a non-empty inner loop; the fused loop runs
// len(i) * len(j) iterations carrying T (the inner index), i, the prologue's value and the
// inner sum; the prologue runs under T == 0, the sum restarts there (a select), the
// epilogue runs under T == len(j) - 1. The prologue's value starts as ub.poison (it is
// written at T == 0 before anything reads it). The fallback is the outer loop with the inner loop
// gone (it would run no iteration).
// CHECK-LABEL: tt.func public @nest
// CHECK: %[[POISON:.*]] = "ub.poison"() : () -> i32
// CHECK: %[[NI:.*]] = arith.ceildivsi %arg1, %c2_i32
// CHECK: %[[LI:.*]] = arith.maxsi %[[NI]], %c0_i32
// CHECK: %[[LJ:.*]] = arith.maxsi
// CHECK: %[[NZ:.*]] = arith.cmpi sgt, %[[LJ]], %c0_i32
// CHECK: scf.if %[[NZ]] {
// CHECK: %[[LAST:.*]] = arith.subi %[[LJ]], %c1_i32
// CHECK: %[[TOT:.*]] = arith.muli %[[LI]], %[[LJ]]
// CHECK: scf.for %{{.*}} = %c0_i32 to %[[TOT]] step %c1_i32 iter_args(%[[T:[a-z0-9]+]] = %[[LAST]], %[[I:[a-z0-9]+]] = %c-2_i32, %[[B:[a-z0-9]+]] = %[[POISON]], %[[ACC:[a-z0-9]+]] = %cst)
// CHECK-NOT: scf.for
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[T]], %[[LAST]]
// CHECK: %[[TN:.*]] = arith.select %[[WRAP]], %c0_i32,
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %c0_i32
// CHECK: %[[IN:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[I]]
// CHECK: %[[PRO:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[IN]], %arg2
// CHECK-NEXT: scf.yield %[[BASE]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[B]]
// CHECK: %[[A0:.*]] = arith.select %[[FIRST]], %cst, %[[ACC]]
// CHECK: tt.load
// CHECK: %[[SUM:.*]] = arith.addf %[[A0]],
// CHECK: %[[END:.*]] = arith.cmpi eq, %[[TN]], %[[LAST]]
// CHECK: scf.if %[[END]] {
// CHECK: tt.store {{.*}}, %[[SUM]]
// CHECK: scf.yield %[[TN]], %[[IN]], %[[PRO]], %[[SUM]]
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %c0_i32 to %arg1 step %c2_i32 : i32 {
// CHECK-NOT: scf.for
// CHECK: tt.store {{.*}}, %cst
// CHECK-NOT: tt.flatten
module {
  tt.func @nest(%p: !tt.ptr<f32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %f0 = arith.constant 0.000000e+00 : f32
    scf.for %i = %c0 to %n step %c2 : i32 {
      %base = arith.muli %i, %m : i32
      %s = scf.for %j = %c0 to %m step %c1 iter_args(%acc = %f0) -> (f32) : i32 {
        %o = arith.addi %base, %j : i32
        %q = tt.addptr %p, %o : !tt.ptr<f32>, i32
        %v = tt.load %q : !tt.ptr<f32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      %q2 = tt.addptr %p, %i : !tt.ptr<f32>, i32
      tt.store %q2, %s : !tt.ptr<f32>
    } {tt.flatten}
    tt.return
  }
}

// -----

// The outer loop's carried value and results: carried through the fused loop, updated by
// the epilogue branch only, and the version's result; an inner bound computed in the outer
// body from values outside it is hoisted first (canonicalize drops the unused i).
// CHECK-LABEL: tt.func public @carried
// CHECK: %[[M2:.*]] = arith.muli %arg2, %c2_i32
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: %[[F:.*]]:3 = scf.for {{.*}} -> (i32, f32, f32)
// CHECK: %[[E:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: arith.addf
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK: scf.yield %[[F]]#2 : f32
// CHECK: } else {
// CHECK: scf.for
// CHECK: tt.store %arg0, %[[R]]
module {
  tt.func @carried(%p: !tt.ptr<f32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %f0 = arith.constant 0.000000e+00 : f32
    %f1 = arith.constant 1.000000e+00 : f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%tot = %f0) -> (f32) : i32 {
      %ub = arith.muli %m, %c2 : i32
      %s = scf.for %j = %c0 to %ub step %c1 iter_args(%acc = %f1) -> (f32) : i32 {
        %q = tt.addptr %p, %j : !tt.ptr<f32>, i32
        %v = tt.load %q : !tt.ptr<f32>
        %a = arith.mulf %acc, %v : f32
        scf.yield %a : f32
      }
      %t2 = arith.addf %tot, %s : f32
      scf.yield %t2 : f32
    } {tt.flatten}
    tt.store %p, %r : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Left alone: an inner bound loaded from memory in the outer body (no pure function of
// the outer index), two inner loops, a nest that will not be pipelined (1 stage), a nest
// without the mark.
// CHECK-LABEL: tt.func public @left_alone
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NEXT: tt.load
// CHECK-NEXT: scf.for
// CHECK: {tt.flatten}
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK: {tt.flatten}
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: {tt.num_stages = 1 : i32}
// CHECK: {tt.flatten}
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.if
module {
  tt.func @left_alone(%p: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %u = tt.load %p : !tt.ptr<i32>
      scf.for %j = %c0 to %u step %c1 : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      }
    } {tt.flatten}
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      }
      scf.for %j = %c0 to %n step %c1 : i32 {
        tt.store %p, %i : !tt.ptr<i32>
      }
    } {tt.flatten}
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      } {tt.num_stages = 1 : i32}
    } {tt.flatten}
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      }
    }
    tt.return
  }
}

// -----

// Inner bounds computed from the outer index (a triangle: j in [i, 2i+1) step 2): a loop
// before the fused one adds up each outer iteration's max(1, len(j)); the fused loop
// carries the current i's last T, lb(j), step(j) and len(j), computed in the prologue
// (T == 0) and read by the wrap test of the next iteration; without tl.assume(ub > lb)
// the body runs under T < len(j) (an outer iteration with an empty inner loop still takes
// one fused iteration, for its epilogue). No version: nothing to speculate on.
// CHECK-LABEL: tt.func public @triangle
// CHECK-NOT: scf.if
// CHECK: %[[TOT:.*]] = scf.for %[[I0:.*]] = %c0_i32 to %arg1 step %c1_i32 iter_args(%[[S:.*]] = %c0_i32) -> (i32)
// CHECK: %[[U0:.*]] = arith.addi
// CHECK: %[[N0:.*]] = arith.ceildivsi
// CHECK: %[[M0:.*]] = arith.maxsi
// CHECK: %[[L0:.*]] = arith.maxsi %[[M0]], %c1_i32
// CHECK: %[[S1:.*]] = arith.addi %[[S]], %[[L0]]
// CHECK-NEXT: scf.yield %[[S1]]
// CHECK: scf.for %{{.*}} = %c0_i32 to %[[TOT]] step %c1_i32 iter_args(%[[T:[a-z0-9]+]] = %c0_i32, %[[I:[a-z0-9]+]] = %c-1_i32, %[[LAST:[a-z0-9]+]] = %c0_i32, %[[LB:[a-z0-9]+]] = %c0_i32, %[[ST:[a-z0-9]+]] = %c0_i32, %[[LEN:[a-z0-9]+]] = %c0_i32
// CHECK-NOT: scf.for
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[T]], %[[LAST]]
// CHECK: %[[TN:.*]] = arith.select %[[WRAP]], %c0_i32,
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %c0_i32
// CHECK: %[[B:.*]]:4 = scf.if %[[FIRST]] -> (i32, i32, i32, i32)
// CHECK: scf.yield {{.*}}, %c2_i32, %{{.*}} : i32, i32, i32, i32
// CHECK: %[[G:.*]] = arith.cmpi slt, %[[TN]], %[[B]]#3
// CHECK-NEXT: scf.if %[[G]] {
// CHECK-NEXT: tt.store
module {
  tt.func @triangle(%p: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %i2 = arith.muli %i, %c2 : i32
      %u = arith.addi %i2, %c1 : i32
      scf.for %j = %i to %u step %c2 : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      }
    } {tt.flatten}
    tt.return
  }
}
