// RUN: tritium-opt %s -p 'triton-nvidia-keep-tma-descriptors,rewrite-tensor-descriptor-to-pointer' | FileCheck %s
// A descriptor made on the device stays a descriptor (marked tt.tma) when TMA can move it:
// base 16-byte aligned, outer stride a multiple of 16 bytes, every use a TMA copy whose inner
// coordinate is aligned, and (stored through) a last dim of whole 16-byte pieces. The rest
// become pointers.

// CHECK-LABEL: tt.func public @made
// CHECK: %[[D:.*]] = tt.make_tensor_descriptor %arg0, [%arg2, %arg3], [%[[S:.*]], %c1_i64] {tt.tma = true} : <f16>, <tensor<64x64xf16>>
// CHECK: tt.descriptor_load %[[D]][%{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.store
// CHECK-NOT: tt.descriptor_store
module {
  tt.func public @made(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32) {
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %s = arith.extsi %arg3 : i32 to i64
    %a = tt.make_tensor_descriptor %arg0, [%arg2, %arg3], [%s, %c1_i64] : <f16>, <tensor<64x64xf16>>
    %v = tt.descriptor_load %a[%c0_i32, %c0_i32] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %s2 = arith.extsi %arg4 : i32 to i64
    %b = tt.make_tensor_descriptor %arg1, [%arg2, %arg4], [%s2, %c1_i64] : <f16>, <tensor<64x64xf16>>
    tt.descriptor_store %b[%c0_i32, %c0_i32], %v : !tt.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
    tt.return
  }
}
