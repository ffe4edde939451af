// RUN: canonicalize --verify-each
// Integer constant folding: two's-complement wraparound at the type width, C-style
// (truncating) signed division, unsigned ops on the same bits, undefined cases left alone.

// CHECK-LABEL: @wrap
tt.func @wrap() -> (i8, i8, i16, i32, i64) {
  %c127 = arith.constant 127 : i8
  %c1 = arith.constant 1 : i8
  %cm128 = arith.constant -128 : i8
  %c2 = arith.constant 2 : i8
  %big = arith.constant 40000 : i16
  %imax = arith.constant 2147483647 : i32
  %lmax = arith.constant 9223372036854775807 : i64
  %l1 = arith.constant 1 : i64
  // CHECK-DAG: arith.constant -128 : i8
  // CHECK-DAG: arith.constant 0 : i8
  // CHECK-DAG: arith.constant 14464 : i16
  // CHECK-DAG: arith.constant 2 : i32
  // CHECK-DAG: arith.constant -9223372036854775808 : i64
  // CHECK-NOT: arith.addi
  // CHECK-NOT: arith.muli
  %0 = arith.addi %c127, %c1 : i8
  %1 = arith.muli %cm128, %c2 : i8
  %2 = arith.addi %big, %big : i16
  %3 = arith.addi %imax, %imax : i32
  %4 = arith.addi %lmax, %l1 : i64
  %5 = arith.muli %3, %imax : i32
  tt.return %0, %1, %2, %5, %4 : i8, i8, i16, i32, i64
}

// CHECK-LABEL: @division
tt.func @division() -> (i32, i32, i32, i32, i32, i32, i32, i32) {
  %c7 = arith.constant 7 : i32
  %cm7 = arith.constant -7 : i32
  %c2 = arith.constant 2 : i32
  %cm2 = arith.constant -2 : i32
  // CHECK-DAG: %[[M3:.*]] = arith.constant -3 : i32
  // CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
  // CHECK-DAG: %[[P1:.*]] = arith.constant 1 : i32
  // CHECK-DAG: %[[M4:.*]] = arith.constant -4 : i32
  // CHECK-DAG: %[[U:.*]] = arith.constant 2147483644 : i32
  // CHECK-DAG: %[[P4:.*]] = arith.constant 4 : i32
  %0 = arith.divsi %cm7, %c2 : i32
  %1 = arith.remsi %cm7, %c2 : i32
  %2 = arith.remsi %c7, %cm2 : i32
  %3 = arith.floordivsi %cm7, %c2 : i32
  %4 = arith.divui %cm7, %c2 : i32
  %5 = arith.remui %cm7, %c2 : i32
  %6 = arith.ceildivsi %c7, %c2 : i32
  %7 = arith.divsi %c7, %cm2 : i32
  // CHECK: tt.return %[[M3]], %[[M1]], %[[P1]], %[[M4]], %[[U]], %[[P1]], %[[P4]], %[[M3]]
  tt.return %0, %1, %2, %3, %4, %5, %6, %7 : i32, i32, i32, i32, i32, i32, i32, i32
}

// CHECK-LABEL: @undefined
tt.func @undefined(%x: i32) -> (i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %cm1 = arith.constant -1 : i32
  %cmin = arith.constant -2147483648 : i32
  %c40 = arith.constant 40 : i32
  // CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
  // CHECK-DAG: %[[C40:.*]] = arith.constant 40 : i32
  // CHECK: arith.divsi %{{.*}}, %[[Z]]
  // CHECK-NEXT: arith.divsi %{{.*}}, %[[M1]]
  // CHECK-NEXT: arith.remui %{{.*}}, %[[Z]]
  // CHECK-NEXT: arith.shli %{{.*}}, %[[C40]]
  %0 = arith.divsi %c7, %c0 : i32
  %1 = arith.divsi %cmin, %cm1 : i32
  %2 = arith.remui %c7, %c0 : i32
  %3 = arith.shli %c7, %c40 : i32
  tt.return %0, %1, %2, %3 : i32, i32, i32, i32
}

// CHECK-LABEL: @bits_and_compares
tt.func @bits_and_compares() -> (i32, i32, i32, i1, i1, i1, i64, i64, i8) {
  %cm1 = arith.constant -1 : i32
  %c28 = arith.constant 28 : i32
  %c12 = arith.constant 12 : i32
  %c1 = arith.constant 1 : i32
  // CHECK-DAG: arith.constant 15 : i32
  // CHECK-DAG: arith.constant -1 : i32
  // CHECK-DAG: arith.constant 16 : i32
  // CHECK-DAG: arith.constant 4294967295 : i64
  // CHECK-DAG: arith.constant -1 : i64
  // CHECK-DAG: arith.constant -1 : i8
  // CHECK-DAG: arith.constant true
  // CHECK-DAG: arith.constant false
  %0 = arith.shrui %cm1, %c28 : i32
  %1 = arith.shrsi %cm1, %c28 : i32
  %2 = arith.xori %c28, %c12 : i32
  %3 = arith.cmpi ult, %c1, %cm1 : i32
  %4 = arith.cmpi slt, %c1, %cm1 : i32
  %5 = arith.cmpi sge, %c28, %c12 : i32
  %6 = arith.extui %cm1 : i32 to i64
  %7 = arith.extsi %cm1 : i32 to i64
  %8 = arith.trunci %cm1 : i32 to i8
  tt.return %0, %1, %2, %3, %4, %5, %6, %7, %8 : i32, i32, i32, i1, i1, i1, i64, i64, i8
}
