// RUN: flowjit-opt %s -p dependency | filecheck %s

// Identities order nothing in df: their users take the operand.
// CHECK-LABEL: func.func @identities
// CHECK-NOT:     df.identity
// CHECK:         %[[N:.*]] = df.neg %0
// CHECK-NEXT:    %[[E:.*]] = df.exp %[[N]]
// CHECK-NEXT:    func.return %[[E]], %[[N]]
func.func @identities(%0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %1 = df.identity %0 : (tensor<3xf32>) -> tensor<3xf32>
  %2 = df.neg %1 : (tensor<3xf32>) -> tensor<3xf32>
  %3 = df.identity %2 : (tensor<3xf32>) -> tensor<3xf32>
  %4 = df.identity %3 : (tensor<3xf32>) -> tensor<3xf32>
  %5 = df.exp %4 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %5, %3 : tensor<3xf32>, tensor<3xf32>
}

// An identity that relaxes a static type stays where a user needs the exact type (the
// function signature); an op user takes the more static operand.
// CHECK-LABEL: func.func @type_changing
// CHECK:         %[[I:.*]] = df.identity %0 : (tensor<3xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[N:.*]] = df.neg %0 : (tensor<3xf32>) -> tensor<?xf32>
// CHECK-NEXT:    func.return %[[I]], %[[N]]
func.func @type_changing(%0: tensor<3xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %1 = df.identity %0 : (tensor<3xf32>) -> tensor<?xf32>
  %2 = df.identity %0 : (tensor<3xf32>) -> tensor<?xf32>
  %3 = df.neg %2 : (tensor<?xf32>) -> tensor<?xf32>
  func.return %1, %3 : tensor<?xf32>, tensor<?xf32>
}
