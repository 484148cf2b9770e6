// RUN: flowjit-opt %s -p layout | filecheck %s

// Directly adjacent inverse transposes cancel; other adjacent pairs compose into one.
// CHECK-LABEL: func.func @adjacent
// CHECK-NEXT:    %[[T:.*]] = df.transpose %0 {perm = array<i64: 1, 2, 0, 3>} : (tensor<2x3x4x5xf32>) -> tensor<3x4x2x5xf32>
// CHECK-NEXT:    func.return %0, %[[T]]
func.func @adjacent(%0: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<3x4x2x5xf32>) {
  %1 = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %2 = df.transpose %1 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x3x4xf32>) -> tensor<2x3x4x5xf32>
  %3 = df.transpose %0 {perm = array<i64: 1, 0, 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<3x2x4x5xf32>
  %4 = df.transpose %3 {perm = array<i64: 0, 2, 1, 3>} : (tensor<3x2x4x5xf32>) -> tensor<3x4x2x5xf32>
  func.return %2, %4 : tensor<2x3x4x5xf32>, tensor<3x4x2x5xf32>
}

// A chain of three: NHWC->NCHW, NCHW->NHWC, NHWC->NCHW leaves one transpose (negative
// perm entries count from the end).
// CHECK-LABEL: func.func @three
// CHECK-NEXT:    %[[T:.*]] = df.transpose %0 {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    func.return %[[T]]
func.func @three(%0: tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32> {
  %1 = df.transpose %0 {perm = array<i64: 0, -1, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  %2 = df.transpose %1 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x5x3x4xf32>) -> tensor<2x3x4x5xf32>
  %3 = df.transpose %2 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  func.return %3 : tensor<2x5x3x4xf32>
}
