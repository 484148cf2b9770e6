// RUN: flowjit-opt %s -p dependency | filecheck %s

// A cond whose branches have no side effect any more passes the captured token through:
// the token leaves the cond, the print after it takes the token from before. The print
// inside the loop keeps the loop's token; a loop without side effects loses its token.
// CHECK-LABEL: func.func @pass_through
// CHECK:         %[[T0:.*]] = df.create_token
// CHECK-NEXT:    %[[T1:.*]] = df.print %0, %[[T0]]
// CHECK-NEXT:    %[[C:.*]] = df.cond %1 : (tensor<i1>) -> tensor<2xf32> {
// CHECK:           df.yield %{{.*}} : tensor<2xf32>
// CHECK:         } else {
// CHECK:           df.yield %0 : tensor<2xf32>
// CHECK:         }
// CHECK-NEXT:    %[[T2:.*]] = df.print %[[C]], %[[T1]]
// CHECK-NEXT:    %[[W:.*]] = df.while(%[[C]]) : (tensor<2xf32>) -> tensor<2xf32> cond {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: tensor<2xf32>):
// CHECK:         body {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: tensor<2xf32>):
// CHECK:         %[[L:.*]], %[[LT:.*]] = df.while(%[[W]], %[[T2]]) : (tensor<2xf32>, !df.token) -> (tensor<2xf32>, !df.token)
// CHECK:           df.print
// CHECK:         df.print %[[L]], %[[LT]]
func.func @pass_through(%0: tensor<2xf32>, %1: tensor<i1>) -> tensor<2xf32> {
  %2 = df.create_token : !df.token
  %3 = df.print %0, %2 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  %4, %5 = df.cond %1 : (tensor<i1>) -> (tensor<2xf32>, !df.token) {
    %6 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %6, %3 : tensor<2xf32>, !df.token
  } else {
    df.yield %0, %3 : tensor<2xf32>, !df.token
  }
  %7 = df.print %4, %5 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  %8, %9 = df.while(%4, %7) : (tensor<2xf32>, !df.token) -> (tensor<2xf32>, !df.token) cond {
  ^bb0(%10: tensor<2xf32>, %11: !df.token):
    df.yield %1 : tensor<i1>
  } body {
  ^bb1(%12: tensor<2xf32>, %13: !df.token):
    %14 = df.exp %12 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %14, %13 : tensor<2xf32>, !df.token
  }
  %15, %16 = df.while(%8, %9) : (tensor<2xf32>, !df.token) -> (tensor<2xf32>, !df.token) cond {
  ^bb0(%17: tensor<2xf32>, %18: !df.token):
    df.yield %1 : tensor<i1>
  } body {
  ^bb1(%19: tensor<2xf32>, %20: !df.token):
    %21 = df.print %19, %20 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
    df.yield %19, %21 : tensor<2xf32>, !df.token
  }
  %22 = df.print %15, %16 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<2xf32>, !df.token) -> !df.token
  func.return %15 : tensor<2xf32>
}

// Branches with a side effect keep the token; an unused create_token goes.
// CHECK-LABEL: func.func @effects_keep
// CHECK:         df.cond %1 : (tensor<i1>) -> (tensor<2xf32>, !df.token)
// CHECK:           df.assign_variable
// CHECK-LABEL: func.func @unused_token
// CHECK-NOT:     df.create_token
func.func @effects_keep(%0: tensor<2xf32>, %1: tensor<i1>, %2: !df.resource<tensor<2xf32>>, %t: !df.token) -> tensor<2xf32> {
  %4, %5 = df.cond %1 : (tensor<i1>) -> (tensor<2xf32>, !df.token) {
    %6 = df.assign_variable %2, %0, %t : (!df.resource<tensor<2xf32>>, tensor<2xf32>, !df.token) -> !df.token
    df.yield %0, %6 : tensor<2xf32>, !df.token
  } else {
    df.yield %0, %t : tensor<2xf32>, !df.token
  }
  func.return %4 : tensor<2xf32>
}
func.func @unused_token(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.create_token : !df.token
  func.return %0 : tensor<2xf32>
}
