// RUN: canonicalize --verify-each
// Float folding happens in the op's precision, rounding once to nearest even; NaN and
// signed zeros follow IEEE-754; splat tensors fold like scalars.

// CHECK-LABEL: @f32_and_f16
tt.func @f32_and_f16() -> (f32, f16, f16, f32, bf16) {
  %a = arith.constant 1.0 : f32
  %b = arith.constant 3.0 : f32
  // 1/3 rounded to f32 is 0x3EAAAAAB (0.3333333432674408).
  // CHECK-DAG: arith.constant 3.333333432674408e-01 : f32
  %0 = arith.divf %a, %b : f32
  // f16: 2048 + 1 is not representable, it rounds to even (2048).
  // CHECK-DAG: arith.constant 2.048000e+03 : f16
  %h1 = arith.constant 2048.0 : f16
  %h2 = arith.constant 1.0 : f16
  %1 = arith.addf %h1, %h2 : f16
  // f16 overflow gives +inf (0x7C00).
  // CHECK-DAG: arith.constant 0x7C00 : f16
  %hbig = arith.constant 60000.0 : f16
  %2 = arith.mulf %hbig, %hbig : f16
  // f32 0.1 + 0.2 differs from the double result.
  // CHECK-DAG: arith.constant 3.0000001192092896e-01 : f32
  %p1 = arith.constant 0.1 : f32
  %p2 = arith.constant 0.2 : f32
  %3 = arith.addf %p1, %p2 : f32
  // bf16 keeps 8 significant bits: 1 + 1/256 rounds back to 1 (tie to even).
  // CHECK-DAG: arith.constant 1.000000e+00 : bf16
  %b1 = arith.constant 1.0 : bf16
  %b2 = arith.constant 0.00390625 : bf16
  %4 = arith.addf %b1, %b2 : bf16
  // CHECK-NOT: arith.addf
  // CHECK-NOT: arith.mulf
  // CHECK-NOT: arith.divf
  tt.return %0, %1, %2, %3, %4 : f32, f16, f16, f32, bf16
}

// CHECK-LABEL: @nan_and_zero
tt.func @nan_and_zero() -> (f32, f32, i1, i1, f32, f32) {
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  // CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
  // CHECK-DAG: %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
  // CHECK-DAG: %[[T:.*]] = arith.constant true
  // CHECK-DAG: %[[F:.*]] = arith.constant false
  // CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
  %0 = arith.divf %z, %z : f32
  %1 = arith.maximumf %0, %one : f32
  %2 = arith.cmpf une, %0, %0 : f32
  %3 = arith.cmpf oeq, %0, %0 : f32
  %4 = arith.minimumf %z, %nz : f32
  %5 = arith.divf %one, %nz : f32
  // CHECK: tt.return %[[NAN]], %[[NAN]], %[[T]], %[[F]], %[[NZ]], %[[NINF]]
  tt.return %0, %1, %2, %3, %4, %5 : f32, f32, i1, i1, f32, f32
}

// CHECK-LABEL: @splat_tensors
tt.func @splat_tensors() -> (tensor<128xf32>, tensor<128xi32>, tensor<128xi1>, tensor<128xf16>) {
  %a = arith.constant dense<2.5> : tensor<128xf32>
  %b = arith.constant dense<4.0> : tensor<128xf32>
  %i = arith.constant dense<-7> : tensor<128xi32>
  %j = arith.constant dense<2> : tensor<128xi32>
  // CHECK-DAG: arith.constant dense<1.000000e+01> : tensor<128xf32>
  // CHECK-DAG: arith.constant dense<-3> : tensor<128xi32>
  // CHECK-DAG: arith.constant dense<true> : tensor<128xi1>
  // CHECK-DAG: arith.constant dense<2.500000e+00> : tensor<128xf16>
  %0 = arith.mulf %a, %b : tensor<128xf32>
  %1 = arith.divsi %i, %j : tensor<128xi32>
  %2 = arith.cmpi slt, %i, %j : tensor<128xi32>
  %3 = arith.truncf %a : tensor<128xf32> to tensor<128xf16>
  // CHECK-NOT: arith.mulf
  // CHECK-NOT: arith.divsi
  // CHECK-NOT: arith.cmpi
  // CHECK-NOT: arith.truncf
  tt.return %0, %1, %2, %3 : tensor<128xf32>, tensor<128xi32>, tensor<128xi1>, tensor<128xf16>
}

// CHECK-LABEL: @conversions
tt.func @conversions() -> (i32, f32, i32, f32, i8) {
  %f = arith.constant -2.75 : f32
  %big = arith.constant 3.0e10 : f32
  %i = arith.constant 16777217 : i32
  %bits = arith.constant 1065353216 : i32
  // CHECK-DAG: arith.constant -2 : i32
  // 2^24 + 1 is not representable in f32: rounds to even.
  // CHECK-DAG: arith.constant 1.6777216e+07 : f32
  // CHECK-DAG: arith.constant 1266679808 : i32
  // CHECK-DAG: arith.constant 1.000000e+00 : f32
  // Out of range for i8: poison, so not folded.
  // CHECK: arith.fptosi %{{.*}} : f32 to i8
  %0 = arith.fptosi %f : f32 to i32
  %1 = arith.sitofp %i : i32 to f32
  %2 = arith.bitcast %1 : f32 to i32
  %3 = arith.bitcast %bits : i32 to f32
  %4 = arith.fptosi %big : f32 to i8
  tt.return %0, %1, %2, %3, %4 : i32, f32, i32, f32, i8
}
