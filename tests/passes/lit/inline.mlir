// RUN: inline --debug-info --verify-each
// Calls are replaced by the callee body with call-site locations; noinline callees stay
// called; private functions left without callers disappear.

#loc_call = loc("kernel.py":10:8)
#loc_body = loc("helpers.py":3:4)

// CHECK-LABEL: @kernel
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32)
tt.func public @kernel(%x: f32, %y: f32) -> (f32, f32) {
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32 loc(callsite("helpers.py":3:4 at "kernel.py":10:8))
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[M]], %[[X]] : f32 loc(callsite("helpers.py":4:4 at "kernel.py":10:8))
  // CHECK-NEXT: %[[N:.*]] = tt.call @keep(%[[S]]) : (f32) -> f32
  // CHECK-NEXT: tt.return %[[S]], %[[N]]
  %0 = tt.call @fma_like(%x, %y) : (f32, f32) -> f32 loc(#loc_call)
  %1 = tt.call @keep(%0) : (f32) -> f32
  tt.return %0, %1 : f32, f32
}

// CHECK-NOT: @fma_like
tt.func private @fma_like(%a: f32, %b: f32) -> f32 {
  %0 = arith.mulf %a, %b : f32 loc(#loc_body)
  %1 = arith.addf %0, %a : f32 loc("helpers.py":4:4)
  tt.return %1 : f32
}

// CHECK: tt.func private @keep
// CHECK-SAME: noinline = true
tt.func private @keep(%a: f32) -> f32 attributes {noinline = true} {
  tt.return %a : f32
}
