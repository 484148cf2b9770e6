// RUN: flowjit-opt %s -p inline | filecheck %s

// A constant index picks the branch; an out-of-range index picks the last one.
// CHECK-LABEL: func.func @const_index
// CHECK-NOT:     df.case
// CHECK:         %[[A:.*]] = df.neg %0
// CHECK-NEXT:    %[[B:.*]] = df.exp %0
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @const_index(%0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %1 = df.const {value = dense<1> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %2 = df.case %1 : (tensor<i32>) -> tensor<2xf32> {
    %3 = df.abs %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %3 : tensor<2xf32>
  }, {
    %4 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %4 : tensor<2xf32>
  }, {
    %5 = df.sqrt %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %5 : tensor<2xf32>
  }
  %6 = df.const {value = dense<7> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %7 = df.case %6 : (tensor<i32>) -> tensor<2xf32> {
    %8 = df.abs %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %8 : tensor<2xf32>
  }, {
    %9 = df.exp %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %9 : tensor<2xf32>
  }
  func.return %2, %7 : tensor<2xf32>, tensor<2xf32>
}

// A branch with a side effect: its ops move, in order, to where the case was, and its
// token replaces the case's token.
// CHECK-LABEL: func.func @with_effect
// CHECK:         %[[T:.*]] = df.create_token
// CHECK-NEXT:    %[[P:.*]] = df.print %0, %[[T]]
// CHECK-NEXT:    df.print %0, %[[P]]
func.func @with_effect(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %2 = df.create_token : !df.token
  %3 = df.case %1 : (tensor<i32>) -> !df.token {
    %4 = df.print %0, %2 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
    df.yield %4 : !df.token
  }, {
    df.yield %2 : !df.token
  }
  %5 = df.print %0, %3 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  func.return %0 : tensor<2xf32>
}
