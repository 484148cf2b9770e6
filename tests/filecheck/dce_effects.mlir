// RUN: flowjit-opt %s -p dce | filecheck %s

// A dead chain goes in one sweep; side effects stay even when nothing uses their token.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[T0:.*]] = df.create_token
// CHECK-NEXT:    %[[T1:.*]] = df.print %0, %[[T0]]
// CHECK-NEXT:    %[[N:.*]] = df.neg %0
// CHECK-NEXT:    func.return %[[N]]
func.func @chain(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.exp %0 : (tensor<2xf32>) -> tensor<2xf32>
  %2 = df.tanh %1 : (tensor<2xf32>) -> tensor<2xf32>
  %3 = df.mul %2, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = df.create_token : !df.token
  %5 = df.print %0, %4 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  %6 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %6 : tensor<2xf32>
}

// An unused cond with a pure body goes with its body; an unused loop whose body prints
// stays. Dead ops inside a kept region go too.
// CHECK-LABEL: func.func @regions
// CHECK-NOT:     df.cond
// CHECK:         %[[W:.*]], %[[WT:.*]] = df.while(%0, %{{.*}}) : (tensor<2xf32>, !df.token) -> (tensor<2xf32>, !df.token) cond {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: tensor<2xf32>, %{{.*}}: !df.token):
// CHECK-NEXT:      df.yield %1 : tensor<i1>
// CHECK-NEXT:    } body {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: tensor<2xf32>, %[[T:.*]]: !df.token):
// CHECK-NEXT:      %[[P:.*]] = df.print %[[X]], %[[T]]
// CHECK-NEXT:      df.yield %[[X]], %[[P]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %0
func.func @regions(%0: tensor<2xf32>, %1: tensor<i1>) -> tensor<2xf32> {
  %2 = df.cond %1 : (tensor<i1>) -> tensor<2xf32> {
    %3 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %3 : tensor<2xf32>
  } else {
    df.yield %0 : tensor<2xf32>
  }
  %4 = df.create_token : !df.token
  %5, %6 = df.while(%0, %4) : (tensor<2xf32>, !df.token) -> (tensor<2xf32>, !df.token) cond {
  ^bb0(%7: tensor<2xf32>, %8: !df.token):
    df.yield %1 : tensor<i1>
  } body {
  ^bb1(%9: tensor<2xf32>, %10: !df.token):
    %11 = df.exp %9 : (tensor<2xf32>) -> tensor<2xf32>
    %12 = df.print %9, %10 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
    df.yield %9, %12 : tensor<2xf32>, !df.token
  }
  func.return %0 : tensor<2xf32>
}
