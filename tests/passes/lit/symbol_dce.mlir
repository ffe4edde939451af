// RUN: symbol-dce --verify-each
// Private functions that no public function reaches are erased.

// CHECK-LABEL: @kernel
// CHECK: tt.call @used
tt.func public @kernel(%x: i32) -> i32 {
  %0 = tt.call @used(%x) : (i32) -> i32
  tt.return %0 : i32
}
// CHECK: tt.func private @used
tt.func private @used(%x: i32) -> i32 {
  %0 = tt.call @used_transitively(%x) : (i32) -> i32
  tt.return %0 : i32
}
// CHECK: tt.func private @used_transitively
tt.func private @used_transitively(%x: i32) -> i32 {
  tt.return %x : i32
}
// CHECK-NOT: @unused
tt.func private @unused(%x: i32) -> i32 {
  %0 = tt.call @unused_too(%x) : (i32) -> i32
  tt.return %0 : i32
}
// CHECK-NOT: @unused_too
tt.func private @unused_too(%x: i32) -> i32 {
  %0 = tt.call @unused(%x) : (i32) -> i32
  tt.return %0 : i32
}
// CHECK: tt.func public @other_kernel
tt.func public @other_kernel() {
  tt.return
}
