// RUN: loop-unroll --verify-each
// Loops marked tt.loop_unroll_factor become a main loop of N body copies plus a remainder.

// CHECK-LABEL: @dynamic_bounds
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f32>, %[[LB:[^:]*]]: i32, %[[UB:[^:]*]]: i32, %[[X:[^:]*]]: f32)
tt.func @dynamic_bounds(%p: !tt.ptr<f32>, %lb: i32, %ub: i32, %x: f32) -> f32 {
  %c3 = arith.constant 3 : i32
  // CHECK: %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]]
  // CHECK-NEXT: %[[TC:.*]] = arith.ceildivsi %[[SPAN]], %[[C3:[^ ]*]]
  // CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[TC]], %[[C2:[^ ]*]]
  // CHECK-NEXT: %[[STEP2:.*]] = arith.constant 6 : i32
  // CHECK-NEXT: %[[M:.*]] = arith.muli %[[Q]], %[[STEP2]]
  // CHECK-NEXT: %[[UBM:.*]] = arith.addi %[[LB]], %[[M]]
  // CHECK: %[[MAIN:.*]] = scf.for %[[I:[^ ]*]] = %[[LB]] to %[[UBM]] step %[[STEP2]] iter_args(%[[A:[^ ]*]] = %[[X]]) -> (f32) : i32 {
  // CHECK-NEXT: tt.store %[[P]], %[[A]]
  // CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A]], %[[A]]
  // CHECK-NEXT: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : i32
  // CHECK-NEXT: tt.store %[[P]], %[[A1]]
  // CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[A1]]
  // CHECK-NEXT: scf.yield %[[A2]] : f32
  // CHECK-NEXT: }
  // CHECK-NOT: tt.loop_unroll_factor
  // CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[UBM]] to %[[UB]] step %[[C3]] iter_args(%[[B:[^ ]*]] = %[[MAIN]]) -> (f32) : i32 {
  // CHECK-NEXT: tt.store %[[P]], %[[B]]
  // CHECK-NEXT: arith.addf
  // CHECK-NEXT: scf.yield
  // CHECK-NEXT: } {tt.num_stages = 1 : i32}
  // CHECK-NEXT: tt.return %[[REST]]
  %r = scf.for %i = %lb to %ub step %c3 iter_args(%a = %x) -> (f32) : i32 {
    tt.store %p, %a : !tt.ptr<f32>
    %b = arith.addf %a, %a : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r : f32
}

// CHECK-LABEL: @constant_bounds
tt.func @constant_bounds(%p: tensor<16x!tt.ptr<i32>>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  // 8 trips by 4: no remainder loop; copies see iv, iv+1, iv+2, iv+3.
  // CHECK: scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
  // CHECK-NEXT: tt.splat %[[I]]
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: %[[I1:.*]] = arith.addi %[[I]], %{{.*}}
  // CHECK-NEXT: tt.splat %[[I1]]
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: %[[I2:.*]] = arith.addi %[[I]], %{{.*}}
  // CHECK-NEXT: tt.splat %[[I2]]
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: %[[I3:.*]] = arith.addi %[[I]], %{{.*}}
  // CHECK-NEXT: tt.splat %[[I3]]
  // CHECK-NEXT: tt.store
  // CHECK-NEXT: }
  // CHECK-NEXT: tt.return
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %v = tt.splat %i : i32 -> tensor<16xi32>
    tt.store %p, %v : tensor<16x!tt.ptr<i32>>
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return
}

// CHECK-LABEL: @not_annotated
tt.func @not_annotated(%n: i32, %x: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: scf.for
  // CHECK-NOT: scf.for
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %b = arith.addf %a, %a : f32
    scf.yield %b : f32
  }
  tt.return %r : f32
}
