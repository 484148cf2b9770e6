// RUN: flowjit-opt %s -p debug-stripper | filecheck %s

// The assert goes; the print that followed it takes the assert's input token. The
// condition computation is left for dce.
// CHECK-LABEL: func.func @strip
// CHECK:         %[[T:.*]] = df.create_token : !df.token
// CHECK-NOT:     df.assert
// CHECK:         df.print %0, %[[T]]
func.func @strip(%0: tensor<3xf32>) -> tensor<3xf32> {
  %1 = df.const {value = dense<0.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %2 = df.greater %0, %1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %3 = df.reduce_all %2 {keepdims = false} : (tensor<3xi1>) -> tensor<i1>
  %4 = df.create_token : !df.token
  %5 = df.assert %3, %0, %4 {message = "x > 0", summarize = 3 : i64} : (tensor<i1>, tensor<3xf32>, !df.token) -> !df.token
  %6 = df.print %0, %5 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<3xf32>, !df.token) -> !df.token
  func.return %0 : tensor<3xf32>
}

// Two asserts in a row, then a variable write: the write takes the first token.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[T:.*]] = df.create_token : !df.token
// CHECK-NOT:     df.assert
// CHECK:         df.assign_variable %1, %0, %[[T]]
func.func @chain(%0: tensor<f32>, %1: !df.resource<tensor<f32>>, %2: tensor<i1>) -> tensor<f32> {
  %3 = df.create_token : !df.token
  %4 = df.assert %2, %3 {message = "a", summarize = 3 : i64} : (tensor<i1>, !df.token) -> !df.token
  %5 = df.assert %2, %0, %4 {message = "b", summarize = 3 : i64} : (tensor<i1>, tensor<f32>, !df.token) -> !df.token
  %6 = df.assign_variable %1, %0, %5 : (!df.resource<tensor<f32>>, tensor<f32>, !df.token) -> !df.token
  func.return %0 : tensor<f32>
}
