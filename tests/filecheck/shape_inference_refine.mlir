// RUN: flowjit-opt %s -p shape-inference | filecheck %s

// Operands more static than the recorded result types (as after folding): the `?` dims are
// filled in along the chain. A value the function returns keeps its declared type (the
// signature never changes), but its users still see the refined type: shape(%3) folds.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.*]] = df.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[N:.*]] = df.neg %[[A]] : (tensor<?x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = df.relu %[[N]] : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = df.const {value = dense<[2, 3]> : tensor<2xi32>, dtype = i32} : () -> tensor<2xi32>
// CHECK-NEXT:    %[[B:.*]] = df.add %[[R]], %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[S]] : tensor<?x3xf32>, tensor<2x3xf32>, tensor<2xi32>
func.func @chain(%0: tensor<2x3xf32>, %1: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<2x3xf32>, tensor<2xi32>) {
  %2 = df.add %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %3 = df.neg %2 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %4 = df.relu %3 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %5 = df.shape %2 {out_type = i32} : (tensor<?x3xf32>) -> tensor<2xi32>
  %6 = df.add %4, %0 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2, %6, %5 : tensor<?x3xf32>, tensor<2x3xf32>, tensor<2xi32>
}

// A constant typed `?` (constant-folding keeps the replaced value's type) takes its value's
// type; an unknown rank becomes known.
// CHECK-LABEL: func.func @const_and_rank
// CHECK:         df.const {value = dense<[1, 2, 3]> : tensor<3xi32>, dtype = i32} : () -> tensor<3xi32>
// CHECK:         df.mul %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK:         df.exp %{{.*}} : (tensor<4x5xf32>) -> tensor<4x5xf32>
func.func @const_and_rank(%0: tensor<3xi32>, %1: tensor<4x5xf32>) -> (tensor<3xi32>, tensor<4x5xf32>) {
  %2 = df.const {value = dense<[1, 2, 3]> : tensor<3xi32>, dtype = i32} : () -> tensor<?xi32>
  %3 = df.mul %0, %2 : (tensor<3xi32>, tensor<?xi32>) -> tensor<?xi32>
  %4 = df.identity %1 : (tensor<4x5xf32>) -> tensor<*xf32>
  %5 = df.exp %4 : (tensor<*xf32>) -> tensor<*xf32>
  %6 = df.add %3, %0 : (tensor<?xi32>, tensor<3xi32>) -> tensor<3xi32>
  %7 = df.add %5, %1 : (tensor<*xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  func.return %6, %7 : tensor<3xi32>, tensor<4x5xf32>
}

// A cond's result is the join of what its branches yield: both 2x3 -> 2x3; 2x3 and 4x3 ->
// ?x3 stays. A loop's types are left alone.
// CHECK-LABEL: func.func @branches
// CHECK:         df.cond %{{.*}} : (tensor<i1>) -> tensor<2x3xf32> {
// CHECK:         df.cond %{{.*}} : (tensor<i1>) -> tensor<?x3xf32> {
// CHECK:         df.while(%{{.*}}) : (tensor<?x3xf32>) -> tensor<?x3xf32>
func.func @branches(%0: tensor<i1>, %1: tensor<2x3xf32>, %2: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %3 = df.cond %0 : (tensor<i1>) -> tensor<?x3xf32> {
    %4 = df.neg %1 : (tensor<2x3xf32>) -> tensor<?x3xf32>
    df.yield %4 : tensor<?x3xf32>
  } else {
    df.yield %1 : tensor<2x3xf32>
  }
  %5 = df.cond %0 : (tensor<i1>) -> tensor<?x3xf32> {
    df.yield %1 : tensor<2x3xf32>
  } else {
    df.yield %2 : tensor<4x3xf32>
  }
  %6 = df.while(%5) : (tensor<?x3xf32>) -> tensor<?x3xf32> cond {
  ^bb0(%7: tensor<?x3xf32>):
    df.yield %0 : tensor<i1>
  } body {
  ^bb1(%8: tensor<?x3xf32>):
    df.yield %8 : tensor<?x3xf32>
  }
  %9 = df.abs %3 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %10 = df.add %9, %1 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %10, %5, %6 : tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
