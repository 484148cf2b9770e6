// RUN: flowjit-opt %s -p arithmetic | filecheck %s

// Involutions and no-ops: neg(neg x), logical_not(logical_not x), identity chains, a cast to
// the same dtype -> x. stop_gradient stays (it matters to gradients).
// CHECK-LABEL: func.func @involutions
// CHECK-NEXT:    %[[S:.*]] = df.stop_gradient %0
// CHECK-NEXT:    %[[N:.*]] = df.neg %0
// CHECK-NEXT:    func.return %0, %1, %0, %0, %[[S]], %[[N]]
func.func @involutions(%0: tensor<?xi32>, %1: tensor<3xi1>) -> (tensor<?xi32>, tensor<3xi1>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %2 = df.neg %0 : (tensor<?xi32>) -> tensor<?xi32>
  %3 = df.neg %2 : (tensor<?xi32>) -> tensor<?xi32>
  %4 = df.logical_not %1 : (tensor<3xi1>) -> tensor<3xi1>
  %5 = df.logical_not %4 : (tensor<3xi1>) -> tensor<3xi1>
  %6 = df.identity %0 : (tensor<?xi32>) -> tensor<?xi32>
  %7 = df.identity %6 : (tensor<?xi32>) -> tensor<?xi32>
  %8 = df.cast %0 {dtype = i32} : (tensor<?xi32>) -> tensor<?xi32>
  %9 = df.stop_gradient %0 : (tensor<?xi32>) -> tensor<?xi32>
  %10 = df.neg %0 : (tensor<?xi32>) -> tensor<?xi32>
  %11 = df.neg %10 : (tensor<?xi32>) -> tensor<?xi32>
  %12 = df.neg %11 : (tensor<?xi32>) -> tensor<?xi32>
  func.return %3, %5, %7, %8, %9, %12 : tensor<?xi32>, tensor<3xi1>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}

// Transposes compose (identity -> x); reshape chains become one reshape to the final static
// shape; squeeze(expand_dims) cancels. A cast to another dtype stays.
// CHECK-LABEL: func.func @movement
// CHECK-NEXT:    %[[T:.*]] = df.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = df.reshape %0 {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    %[[C:.*]] = df.cast %0 {dtype = f64}
// CHECK-NEXT:    func.return %0, %[[T]], %[[R]], %0, %0, %[[C]]
func.func @movement(%0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf64>) {
  %1 = df.transpose %0 {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %2 = df.transpose %1 {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %3 = df.transpose %0 {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %4 = df.transpose %3 {perm = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  %5 = df.reshape %0 {shape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %6 = df.reshape %5 {shape = array<i64: 2, 12>} : (tensor<24xf32>) -> tensor<2x12xf32>
  %7 = df.reshape %6 {shape = array<i64: 4, -1>} : (tensor<2x12xf32>) -> tensor<4x6xf32>
  %8 = df.reshape %5 {shape = array<i64: 2, 3, 4>} : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %9 = df.expand_dims %0 {axis = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4x1xf32>
  %10 = df.squeeze %9 {axis = array<i64: 3>} : (tensor<2x3x4x1xf32>) -> tensor<2x3x4xf32>
  %11 = df.cast %0 {dtype = f64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf64>
  func.return %2, %4, %7, %8, %10, %11 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf64>
}

// Not rewritten: a reshape chain through a dynamic shape (the run-time element-count check
// could differ), expand_dims(squeeze) of a `?` dim (squeeze checks it is 1 at run time).
// CHECK-LABEL: func.func @dynamic_guards
// CHECK:         df.reshape
// CHECK-NEXT:    df.reshape
// CHECK-NEXT:    df.squeeze
// CHECK-NEXT:    df.expand_dims
func.func @dynamic_guards(%0: tensor<?x4xf32>, %1: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<1x4xf32>) {
  %2 = df.reshape %0 {shape = array<i64: -1>} : (tensor<?x4xf32>) -> tensor<?xf32>
  %3 = df.reshape %2 {shape = array<i64: -1, 2>} : (tensor<?xf32>) -> tensor<?x2xf32>
  %4 = df.squeeze %1 {axis = array<i64: 0>} : (tensor<?x4xf32>) -> tensor<4xf32>
  %5 = df.expand_dims %4 {axis = 0 : i64} : (tensor<4xf32>) -> tensor<1x4xf32>
  func.return %3, %5 : tensor<?x2xf32>, tensor<1x4xf32>
}
