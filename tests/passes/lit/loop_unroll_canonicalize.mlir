// RUN: loop-unroll,canonicalize --verify-each
// After unrolling, canonicalize cleans up: 10 trips by 4 leave a 2-trip remainder loop;
// 3 trips by 4 unroll completely into straight-line code.

// CHECK-LABEL: @remainder
tt.func @remainder(%p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
  // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
  // CHECK-DAG: %[[C10:.*]] = arith.constant 10 : i32
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
  // CHECK: scf.for %{{.*}} = %[[C0]] to %[[C8]] step %[[C4]] : i32 {
  // CHECK-COUNT-4: tt.store
  // CHECK: scf.for %{{.*}} = %[[C8]] to %[[C10]] step %[[C1]] : i32 {
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: } {tt.num_stages = 1 : i32}
  scf.for %i = %c0 to %c10 step %c1 : i32 {
    tt.store %p, %i : !tt.ptr<i32>
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return
}

// CHECK-LABEL: @full
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<i32>)
tt.func @full(%p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  // CHECK-NOT: scf.for
  // CHECK: tt.store %[[P]], %[[A:[^ ]*]]
  // CHECK-NEXT: tt.store %[[P]], %[[B:[^ ]*]]
  // CHECK-NEXT: tt.store %[[P]], %[[C:[^ ]*]]
  // CHECK-NEXT: tt.return
  scf.for %i = %c0 to %c3 step %c1 : i32 {
    tt.store %p, %i : !tt.ptr<i32>
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return
}
