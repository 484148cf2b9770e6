// RUN: flowjit-opt %s -p cse | filecheck %s

// Ops with the same name, operands, attributes and result types are one op: the first one
// stays and its users take it. Different attributes or values keep ops apart.
// CHECK-LABEL: func.func @flat
// CHECK-NEXT:    %[[A:.*]] = df.add %0, %0
// CHECK-NEXT:    %[[T:.*]] = df.transpose %[[A]] {perm = array<i64: 1, 0>}
// CHECK-NEXT:    %[[U:.*]] = df.transpose %[[A]] {perm = array<i64: 0, 1>}
// CHECK-NEXT:    %[[ONE:.*]] = df.const {value = dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[TWO:.*]] = df.const {value = dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    func.return %[[A]], %[[A]], %[[T]], %[[T]], %[[U]], %[[ONE]], %[[ONE]], %[[TWO]] :
func.func @flat(%0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %1 = df.add %0, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = df.add %0, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = df.transpose %1 {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = df.transpose %2 {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %5 = df.transpose %2 {perm = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %6 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %7 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %8 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  func.return %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// Scoped: a value computed above a region is reused inside it (it dominates the region);
// one computed inside a branch is not reused after the cond, nor in the other branch.
// CHECK-LABEL: func.func @scoped
// CHECK-NEXT:    %[[E:.*]] = df.exp %0
// CHECK-NEXT:    %[[C:.*]] = df.cond %1 : (tensor<i1>) -> tensor<2xf32> {
// CHECK-NEXT:      %[[N1:.*]] = df.neg %[[E]]
// CHECK-NEXT:      df.yield %[[N1]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[N2:.*]] = df.neg %[[E]]
// CHECK-NEXT:      %[[M:.*]] = df.mul %[[N2]], %[[N2]]
// CHECK-NEXT:      df.yield %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N3:.*]] = df.neg %[[E]]
// CHECK-NEXT:    func.return %[[C]], %[[N3]]
func.func @scoped(%0: tensor<2xf32>, %1: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %2 = df.exp %0 : (tensor<2xf32>) -> tensor<2xf32>
  %3 = df.cond %1 : (tensor<i1>) -> tensor<2xf32> {
    %4 = df.exp %0 : (tensor<2xf32>) -> tensor<2xf32>
    %5 = df.neg %4 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %5 : tensor<2xf32>
  } else {
    %6 = df.neg %2 : (tensor<2xf32>) -> tensor<2xf32>
    %7 = df.neg %2 : (tensor<2xf32>) -> tensor<2xf32>
    %8 = df.mul %6, %7 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    df.yield %8 : tensor<2xf32>
  }
  %9 = df.neg %2 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %3, %9 : tensor<2xf32>, tensor<2xf32>
}

// Side effects are never merged: two prints of the same value both stay, in order.
// CHECK-LABEL: func.func @effects
// CHECK:         %[[T1:.*]] = df.print %0, %{{.*}}
// CHECK-NEXT:    %[[T2:.*]] = df.print %0, %[[T1]]
func.func @effects(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.create_token : !df.token
  %2 = df.print %0, %1 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  %3 = df.print %0, %2 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  func.return %0 : tensor<2xf32>
}
