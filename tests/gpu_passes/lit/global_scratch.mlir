// RUN: tritium-opt %s -p 'tritongpu-global-scratch-memory-allocation' | FileCheck %s
// Each device-made TMA descriptor gets its own 128-byte slot of the program's global
// scratch; the module records the total and its alignment. Unmarked ones get none.

// CHECK: module attributes {ttg.global_scratch_memory_alignment = 128 : i32, ttg.global_scratch_memory_size = 256 : i32}
// CHECK: tt.make_tensor_descriptor %arg0{{.*}}{tt.tma = true, ttg.global_scratch_memory_offset = 0 : i32}
// CHECK: tt.make_tensor_descriptor %arg0{{.*}}{padding = 2 : i32, tt.tma = true, ttg.global_scratch_memory_offset = 128 : i32}
// CHECK: tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%0, %c1_i64] : <f16>
module {
  tt.func public @k(%arg0: !tt.ptr<f16>, %arg1: i32) {
    %c1_i64 = arith.constant 1 : i64
    %0 = arith.extsi %arg1 : i32 to i64
    %1 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%0, %c1_i64] {tt.tma = true} : <f16>, <tensor<64x64xf16>>
    %2 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%0, %c1_i64] {padding = 2 : i32, tt.tma = true} : <f16>, <tensor<64x64xf16>>
    %3 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%0, %c1_i64] : <f16>, <tensor<64x64xf16>>
    tt.return
  }
}
