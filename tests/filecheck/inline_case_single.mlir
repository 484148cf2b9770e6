// RUN: flowjit-opt %s -p inline | filecheck %s

// A single-branch case always runs that branch, whatever the index.
// CHECK-LABEL: func.func @single
// CHECK-NOT:     df.case
// CHECK:         %[[N:.*]] = df.neg %0
// CHECK-NEXT:    func.return %[[N]]
func.func @single(%0: tensor<2xf32>, %1: tensor<i32>) -> tensor<2xf32> {
  %2 = df.case %1 : (tensor<i32>) -> tensor<2xf32> {
    %3 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %3 : tensor<2xf32>
  }
  func.return %2 : tensor<2xf32>
}

// A run-time index keeps the case; a more static yielded type goes through an identity
// of the case's type.
// CHECK-LABEL: func.func @dynamic
// CHECK:         df.case %1
// CHECK-LABEL: func.func @relaxed_type
// CHECK:         %[[N:.*]] = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[I:.*]] = df.identity %[[N]] : (tensor<2xf32>) -> tensor<?xf32>
// CHECK-NEXT:    func.return %[[I]]
func.func @dynamic(%0: tensor<2xf32>, %1: tensor<i32>) -> tensor<2xf32> {
  %2 = df.case %1 : (tensor<i32>) -> tensor<2xf32> {
    %3 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %3 : tensor<2xf32>
  }, {
    df.yield %0 : tensor<2xf32>
  }
  func.return %2 : tensor<2xf32>
}
func.func @relaxed_type(%0: tensor<2xf32>) -> tensor<?xf32> {
  %1 = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %2 = df.case %1 : (tensor<i32>) -> tensor<?xf32> {
    %3 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %3 : tensor<2xf32>
  }, {
    %4 = df.identity %0 : (tensor<2xf32>) -> tensor<?xf32>
    df.yield %4 : tensor<?xf32>
  }
  func.return %2 : tensor<?xf32>
}
