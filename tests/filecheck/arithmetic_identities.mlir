// RUN: flowjit-opt %s -p arithmetic | filecheck %s

// x*1, 1*x, x/1, x-(+0.0), x+(-0.0), int x+0, logical_and(x, true): all x exactly.
// CHECK-LABEL: func.func @neutral
// CHECK-NOT:     df.mul
// CHECK-NOT:     df.div
// CHECK-NOT:     df.sub
// CHECK-NOT:     df.add
// CHECK-NOT:     df.logical_and
// CHECK:         func.return %0, %0, %0, %0, %0, %1, %2
func.func @neutral(%0: tensor<?x3xf32>, %1: tensor<4xi32>, %2: tensor<2xi1>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4xi32>, tensor<2xi1>) {
  %3 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %4 = df.mul %0, %3 : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
  %5 = df.const {value = dense<1.0> : tensor<1x3xf32>, dtype = f32} : () -> tensor<1x3xf32>
  %6 = df.mul %5, %0 : (tensor<1x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %7 = df.div %0, %3 : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
  %8 = df.const {value = dense<0.0> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
  %9 = df.sub %0, %8 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %10 = df.const {value = dense<-0.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %11 = df.add %10, %0 : (tensor<f32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %12 = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %13 = df.add %1, %12 : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %14 = df.const {value = dense<true> : tensor<i1>, dtype = i1} : () -> tensor<i1>
  %15 = df.logical_and %14, %2 : (tensor<i1>, tensor<2xi1>) -> tensor<2xi1>
  func.return %4, %6, %7, %9, %11, %13, %15 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4xi32>, tensor<2xi1>
}

// Guards: x + (+0.0) (-0.0 + 0.0 is +0.0), x - (-0.0), x * 0.0 (NaN * 0 is NaN), 0 - x,
// a constant that broadcasts x to a bigger shape, a constant that is not all ones, and a
// rank-2 constant against an unknown rank (it could add dims at run time).
// CHECK-LABEL: func.func @guards
// CHECK:         %[[A:.*]] = df.add %0
// CHECK:         %[[B:.*]] = df.sub %0
// CHECK:         %[[C:.*]] = df.mul %0
// CHECK:         %[[D:.*]] = df.sub
// CHECK:         %[[E:.*]] = df.mul %0
// CHECK:         %[[F:.*]] = df.mul %0
// CHECK:         %[[G:.*]] = df.mul %1
// CHECK:         %[[H:.*]] = df.add %0
// CHECK:         func.return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]]
func.func @guards(%0: tensor<3xf32>, %1: tensor<*xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<*xf32>, tensor<3xf32>) {
  %2 = df.const {value = dense<0.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %3 = df.add %0, %2 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %4 = df.const {value = dense<-0.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %5 = df.sub %0, %4 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %6 = df.mul %0, %2 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %7 = df.sub %2, %0 : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %8 = df.const {value = dense<1.0> : tensor<2x3xf32>, dtype = f32} : () -> tensor<2x3xf32>
  %9 = df.mul %0, %8 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = df.const {value = dense<[1.0, 2.0, 1.0]> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
  %11 = df.mul %0, %10 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %12 = df.const {value = dense<1.0> : tensor<1x1xf32>, dtype = f32} : () -> tensor<1x1xf32>
  %13 = df.mul %1, %12 : (tensor<*xf32>, tensor<1x1xf32>) -> tensor<*xf32>
  %14 = df.const {value = dense<[0.0, -0.0, 0.0]> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
  %15 = df.add %0, %14 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %3, %5, %6, %7, %9, %11, %13, %15 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<*xf32>, tensor<3xf32>
}
