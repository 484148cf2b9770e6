// RUN: flowjit-opt %s -p loop-invariant-code-motion | filecheck %s

// The body computes c = 2 * w and sum(c) each iteration from values defined outside:
// the constant, the product and the sum move before the loop, in order; the cond's bound
// constant too. What depends on the loop values stays.
// CHECK-LABEL: func.func @hoist_chain
// CHECK:         %[[BOUND:.*]] = df.const {value = dense<3> : tensor<i32>
// CHECK:         %[[TWO:.*]] = df.const {value = dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[C:.*]] = df.mul %[[TWO]], %1
// CHECK-NEXT:    %[[ONE:.*]] = df.const {value = dense<1> : tensor<i32>
// CHECK-NEXT:    %[[S:.*]] = df.reduce_sum %[[C]]
// CHECK-NEXT:    df.while
// CHECK:         df.less %{{.*}}, %[[BOUND]]
// CHECK:         body {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: tensor<i32>, %[[X:.*]]: tensor<4x3xf32>):
// CHECK-NEXT:      %[[I1:.*]] = df.add %[[I]], %[[ONE]]
// CHECK-NEXT:      %[[X1:.*]] = df.add %[[X]], %[[S]]
// CHECK-NEXT:      df.yield %[[I1]], %[[X1]]
func.func @hoist_chain(%0: tensor<4x3xf32>, %1: tensor<3x5xf32>) -> tensor<4x3xf32> {
  %2 = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %3, %4 = df.while(%2, %0) : (tensor<i32>, tensor<4x3xf32>) -> (tensor<i32>, tensor<4x3xf32>) cond {
  ^bb0(%5: tensor<i32>, %6: tensor<4x3xf32>):
    %7 = df.const {value = dense<3> : tensor<i32>, dtype = i32} : () -> tensor<i32>
    %8 = df.less %5, %7 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    df.yield %8 : tensor<i1>
  } body {
  ^bb1(%9: tensor<i32>, %10: tensor<4x3xf32>):
    %11 = df.const {value = dense<2.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32>
    %12 = df.mul %11, %1 : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %13 = df.const {value = dense<1> : tensor<i32>, dtype = i32} : () -> tensor<i32>
    %14 = df.add %9, %13 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %15 = df.reduce_sum %12 {keepdims = false} : (tensor<3x5xf32>) -> tensor<f32>
    %16 = df.add %10, %15 : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    df.yield %14, %16 : tensor<i32>, tensor<4x3xf32>
  }
  func.return %4 : tensor<4x3xf32>
}

// Nested loops: the invariant op leaves the inner loop, then the outer one.
// CHECK-LABEL: func.func @hoist_nested
// CHECK:         %[[E:.*]] = df.exp %1
// CHECK-NEXT:    df.while
// CHECK-NOT:     df.exp
// CHECK:         func.return
func.func @hoist_nested(%0: tensor<2xf32>, %1: tensor<2xf32>, %2: tensor<i1>) -> tensor<2xf32> {
  %3 = df.while(%0) : (tensor<2xf32>) -> tensor<2xf32> cond {
  ^bb0(%4: tensor<2xf32>):
    df.yield %2 : tensor<i1>
  } body {
  ^bb1(%5: tensor<2xf32>):
    %6 = df.while(%5) : (tensor<2xf32>) -> tensor<2xf32> cond {
    ^bb2(%7: tensor<2xf32>):
      df.yield %2 : tensor<i1>
    } body {
    ^bb3(%8: tensor<2xf32>):
      %9 = df.exp %1 : (tensor<2xf32>) -> tensor<2xf32>
      %10 = df.add %8, %9 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      df.yield %10 : tensor<2xf32>
    }
    df.yield %6 : tensor<2xf32>
  }
  func.return %3 : tensor<2xf32>
}
