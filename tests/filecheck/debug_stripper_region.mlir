// RUN: flowjit-opt %s -p debug-stripper | filecheck %s

// An assert inside a branch: the branch yields the token it captured.
// CHECK-LABEL: func.func @in_branch
// CHECK:         %[[T:.*]] = df.create_token : !df.token
// CHECK-NEXT:    df.cond %1 : (tensor<i1>) -> (tensor<3xf32>, !df.token) {
// CHECK-NEXT:      df.yield %0, %[[T]] : tensor<3xf32>, !df.token
// CHECK-NEXT:    } else {
// CHECK-NEXT:      df.yield %0, %[[T]] : tensor<3xf32>, !df.token
// CHECK-NOT:     df.assert
func.func @in_branch(%0: tensor<3xf32>, %1: tensor<i1>) -> tensor<3xf32> {
  %2 = df.create_token : !df.token
  %3, %4 = df.cond %1 : (tensor<i1>) -> (tensor<3xf32>, !df.token) {
    %5 = df.assert %1, %2 {message = "p", summarize = 3 : i64} : (tensor<i1>, !df.token) -> !df.token
    df.yield %0, %5 : tensor<3xf32>, !df.token
  } else {
    df.yield %0, %2 : tensor<3xf32>, !df.token
  }
  func.return %3 : tensor<3xf32>
}

// An assert in a loop body: the body yields its token argument.
// CHECK-LABEL: func.func @in_loop
// CHECK:         body {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: tensor<3xf32>, %[[T:.*]]: !df.token):
// CHECK-NEXT:      df.yield %[[X]], %[[T]] : tensor<3xf32>, !df.token
func.func @in_loop(%0: tensor<3xf32>, %1: tensor<i1>) -> tensor<3xf32> {
  %2 = df.create_token : !df.token
  %3, %4 = df.while(%0, %2) : (tensor<3xf32>, !df.token) -> (tensor<3xf32>, !df.token) cond {
  ^bb0(%5: tensor<3xf32>, %6: !df.token):
    df.yield %1 : tensor<i1>
  } body {
  ^bb1(%7: tensor<3xf32>, %8: !df.token):
    %9 = df.assert %1, %7, %8 {message = "p", summarize = 3 : i64} : (tensor<i1>, tensor<3xf32>, !df.token) -> !df.token
    df.yield %7, %9 : tensor<3xf32>, !df.token
  }
  func.return %3 : tensor<3xf32>
}
