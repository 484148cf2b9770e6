// RUN: flowjit-opt %s -p layout | filecheck %s

// NHWC -> NCHW, relu, * scalar, + per-channel [C, 1, 1] constant, back to NHWC: the ops run
// on the NHWC input directly; the constant is transposed once at compile time.
// CHECK-LABEL: func.func @around_elementwise
// CHECK-NOT:     df.transpose
// CHECK:         %[[R:.*]] = df.relu %0 : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %[[M:.*]] = df.mul %[[R]], %1 : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %[[C:.*]] = df.const {value = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]]]]> : tensor<1x1x1x5xf32>
// CHECK-NEXT:    %[[A:.*]] = df.add %[[M]], %[[C]] : (tensor<2x3x4x5xf32>, tensor<1x1x1x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @around_elementwise(%0: tensor<2x3x4x5xf32>, %1: tensor<f32>) -> tensor<2x3x4x5xf32> {
  %2 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %3 = df.relu %2 : (tensor<2x5x3x4xf32>) -> tensor<2x5x3x4xf32>
  %4 = df.mul %3, %1 : (tensor<2x5x3x4xf32>, tensor<f32>) -> tensor<2x5x3x4xf32>
  %5 = df.const {value = dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]]]> : tensor<5x1x1xf32>, dtype = f32} : () -> tensor<5x1x1xf32>
  %6 = df.add %4, %5 : (tensor<2x5x3x4xf32>, tensor<5x1x1xf32>) -> tensor<2x5x3x4xf32>
  %7 = df.transpose %6 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x3x4xf32>) -> tensor<2x3x4x5xf32>
  func.return %7 : tensor<2x3x4x5xf32>
}

// Both operands of a binary op transposed the same way: both transposes go; a comparison
// changes the dtype and stays elementwise.
// CHECK-LABEL: func.func @both_operands
// CHECK-NOT:     df.transpose
// CHECK:         %[[S:.*]] = df.sub %0, %1 : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT:    %[[G:.*]] = df.greater %[[S]], %2 : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x4x5xi1>
// CHECK-NEXT:    func.return %[[G]]
func.func @both_operands(%0: tensor<2x3x4x5xf32>, %1: tensor<2x3x4x5xf32>, %2: tensor<f32>) -> tensor<2x3x4x5xi1> {
  %3 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %4 = df.transpose %1 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %5 = df.sub %3, %4 : (tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>) -> tensor<2x5x3x4xf32>
  %6 = df.greater %5, %2 : (tensor<2x5x3x4xf32>, tensor<f32>) -> tensor<2x5x3x4xi1>
  %7 = df.transpose %6 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x3x4xi1>) -> tensor<2x3x4x5xi1>
  func.return %7 : tensor<2x3x4x5xi1>
}

// Not rewritten: the transposed intermediate has a second use; a non-elementwise op
// (reduce_sum) sits between; the second transpose is not the inverse.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: df.transpose
// CHECK:         func.return
func.func @kept(%0: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x5x3x4xf32>, tensor<2x4x5xf32>, tensor<2x4x3x5xf32>) {
  %1 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %2 = df.relu %1 : (tensor<2x5x3x4xf32>) -> tensor<2x5x3x4xf32>
  %3 = df.transpose %2 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x3x4xf32>) -> tensor<2x3x4x5xf32>
  %4 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %5 = df.reduce_sum %4 {axis = array<i64: 2>, keepdims = false} : (tensor<2x5x3x4xf32>) -> tensor<2x5x4xf32>
  %6 = df.transpose %5 {perm = array<i64: 0, 2, 1>} : (tensor<2x5x4xf32>) -> tensor<2x4x5xf32>
  %7 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %8 = df.neg %7 : (tensor<2x5x3x4xf32>) -> tensor<2x5x3x4xf32>
  %9 = df.transpose %8 {perm = array<i64: 0, 3, 2, 1>} : (tensor<2x5x3x4xf32>) -> tensor<2x4x3x5xf32>
  func.return %3, %2, %6, %9 : tensor<2x3x4x5xf32>, tensor<2x5x3x4xf32>, tensor<2x4x5xf32>, tensor<2x4x3x5xf32>
}
