// RUN: tritium-opt %s -p 'convert-triton-to-tritongpu{num-warps=4},tritongpu-coalesce' --split-input-file | FileCheck %s

// fp32, 16-byte aligned pointers, n divisible by 16: 4 x 32 bits per thread.
// CHECK-DAG: #[[DEF:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[VEC:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @add_kernel
// CHECK: %[[P:.*]] = ttg.convert_layout %{{.*}} : tensor<1024x!tt.ptr<f32>, #[[DEF]]> -> tensor<1024x!tt.ptr<f32>, #[[VEC]]>
// CHECK: %[[M:.*]] = ttg.convert_layout %{{.*}} : tensor<1024xi1, #[[DEF]]> -> tensor<1024xi1, #[[VEC]]>
// CHECK: %[[X:.*]] = tt.load %[[P]], %[[M]] : tensor<1024x!tt.ptr<f32>, #[[VEC]]>
// CHECK: ttg.convert_layout %[[X]] : tensor<1024xf32, #[[VEC]]> -> tensor<1024xf32, #[[DEF]]>
// CHECK: tt.load %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #[[VEC]]>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #[[VEC]]>
module {
  tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>>
    %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f32>>
    %13 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %14 = tt.addptr %13, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %15 = arith.addf %9, %12 : tensor<1024xf32>
    tt.store %14, %15, %6 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}


// -----

// fp16: 8 x 16 bits per thread.
// CHECK: #[[VEC16:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @add_kernel
// CHECK: tt.load %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f16>, #[[VEC16]]>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f16>, #[[VEC16]]>
module {
  tt.func public @add_kernel(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f16>>
    %10 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f16>>
    %13 = tt.splat %arg2 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %14 = tt.addptr %13, %4 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %15 = arith.addf %9, %12 : tensor<1024xf16>
    tt.store %14, %15, %6 : tensor<1024x!tt.ptr<f16>>
    tt.return
  }
}


// -----

// n not known to be a multiple of 16: the mask may change at every element, so each
// thread accesses one element (its warp still reads 128 contiguous bytes), and the
// default layout already is that one: nothing to convert.
// CHECK-NOT: sizePerThread = [4]
// CHECK-LABEL: tt.func public @add_kernel
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
module {
  tt.func public @add_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: i32) {
    %c1024_i32 = arith.constant 1024 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c1024_i32 : i32
    %2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %3 = tt.splat %1 : i32 -> tensor<1024xi32>
    %4 = arith.addi %3, %2 : tensor<1024xi32>
    %5 = tt.splat %arg3 : i32 -> tensor<1024xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
    %7 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %9 = tt.load %8, %6 : tensor<1024x!tt.ptr<f32>>
    %10 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %11 = tt.addptr %10, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %12 = tt.load %11, %6 : tensor<1024x!tt.ptr<f32>>
    %13 = tt.splat %arg2 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %14 = tt.addptr %13, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %15 = arith.addf %9, %12 : tensor<1024xf32>
    tt.store %14, %15, %6 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}


// -----

// A 4x1024 row tile: dim 1 is contiguous, so order [1, 0] with 4 elements per thread
// along it (the row stride is a multiple of 16 elements).
// CHECK: #[[ROW:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: tt.func public @rows
// CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1024x!tt.ptr<f32>, #[[ROW]]>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1024x!tt.ptr<f32>, #[[ROW]]>
module {
  tt.func public @rows(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32 {tt.divisibility = 16 : i32}, %arg2: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0xFF800000> : tensor<4x1024xf32>
    %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %2 = tt.expand_dims %0 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %3 = tt.splat %arg1 : i32 -> tensor<4x1xi32>
    %4 = arith.muli %2, %3 : tensor<4x1xi32>
    %5 = tt.expand_dims %1 {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
    %6 = tt.broadcast %4 : tensor<4x1xi32> -> tensor<4x1024xi32>
    %7 = tt.broadcast %5 : tensor<1x1024xi32> -> tensor<4x1024xi32>
    %8 = arith.addi %6, %7 : tensor<4x1024xi32>
    %9 = tt.splat %arg2 : i32 -> tensor<1x1024xi32>
    %10 = arith.cmpi slt, %5, %9 : tensor<1x1024xi32>
    %11 = tt.broadcast %10 : tensor<1x1024xi1> -> tensor<4x1024xi1>
    %12 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x1024x!tt.ptr<f32>>
    %13 = tt.addptr %12, %8 : tensor<4x1024x!tt.ptr<f32>>, tensor<4x1024xi32>
    %14 = tt.load %13, %11, %cst : tensor<4x1024x!tt.ptr<f32>>
    %15 = math.exp %14 : tensor<4x1024xf32>
    tt.store %13, %15, %11 : tensor<4x1024x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// One slice, three pointers: %a is 16-byte aligned, %b and %out are not. The loads agree
// on the widest width of the slice (the lowering vectorizes %b's load less), while the
// store keeps its own width so that a warp writes without gaps.
// CHECK-DAG: #[[W4:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[W1:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func public @mixed
// CHECK: tt.load %{{.*}} : tensor<512x!tt.ptr<f32>, #[[W4]]>
// CHECK: tt.load %{{.*}} : tensor<512x!tt.ptr<f32>, #[[W4]]>
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<512x!tt.ptr<f32>, #[[W1]]>
module {
  tt.func public @mixed(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %1 = tt.splat %a : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %3 = tt.load %2 : tensor<512x!tt.ptr<f32>>
    %4 = tt.splat %b : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %5 = tt.addptr %4, %0 : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    %6 = tt.load %5 : tensor<512x!tt.ptr<f32>>
    %7 = arith.addf %3, %6 : tensor<512xf32>
    %8 = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>>
    %9 = tt.addptr %8, %0 : tensor<512x!tt.ptr<f32>>, tensor<512xi32>
    tt.store %9, %7 : tensor<512x!tt.ptr<f32>>
    tt.return
  }
}

// -----

// Small tensors: 64 elements over 128 threads cannot give a thread 4 of them.
// Atomics are coalesced like stores. Column accesses (stride along dim 0) keep order
// [0, 1] when dim 0 is the contiguous one.
// CHECK-DAG: #[[S1:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[COL:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tt.func public @small_and_atomic
// CHECK: tt.load %{{.*}} : tensor<64x!tt.ptr<f32>, #[[S1]]>
// CHECK: tt.atomic_rmw
// CHECK-SAME: tensor<64x8x!tt.ptr<f32>, #[[COL]]>
module {
  tt.func public @small_and_atomic(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %acc: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %ld: i32 {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %a : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.load %2 : tensor<64x!tt.ptr<f32>>
    %4 = tt.expand_dims %0 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %5 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %6 = tt.expand_dims %5 {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %7 = tt.splat %ld : i32 -> tensor<1x8xi32>
    %8 = arith.muli %6, %7 : tensor<1x8xi32>
    %9 = tt.broadcast %4 : tensor<64x1xi32> -> tensor<64x8xi32>
    %10 = tt.broadcast %8 : tensor<1x8xi32> -> tensor<64x8xi32>
    %11 = arith.addi %9, %10 : tensor<64x8xi32>
    %12 = tt.splat %acc : !tt.ptr<f32> -> tensor<64x8x!tt.ptr<f32>>
    %13 = tt.addptr %12, %11 : tensor<64x8x!tt.ptr<f32>>, tensor<64x8xi32>
    %14 = tt.expand_dims %3 {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %15 = tt.broadcast %14 : tensor<64x1xf32> -> tensor<64x8xf32>
    %16 = "tt.atomic_rmw"(%13, %15) {atomic_rmw_op = 5 : i32, scope = 1 : i32, sem = 4 : i32} : (tensor<64x8x!tt.ptr<f32>>, tensor<64x8xf32>) -> tensor<64x8xf32>
    tt.return
  }
}
