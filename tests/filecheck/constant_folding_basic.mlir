// RUN: flowjit-opt %s -p constant-folding | filecheck %s
// RUN: flowjit-opt %s -p "constant-folding{max-size=2}" | filecheck %s --check-prefix=SMALL

// A chain of pure ops on constants folds in one run; the constants it used go too.
// Multi-result ops fold into one constant per result.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C:.*]] = df.const {value = dense<[-1.000000e+00, -3.000000e+00, -5.000000e+00]> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
// CHECK-NEXT:    %[[A:.*]] = df.const {value = dense<[1, 2]> : tensor<2xi32>, dtype = i32} : () -> tensor<2xi32>
// CHECK-NEXT:    %[[B:.*]] = df.const {value = dense<3> : tensor<1xi32>, dtype = i32} : () -> tensor<1xi32>
// CHECK-NEXT:    %[[X:.*]] = df.add %0, %[[C]]
// CHECK-NEXT:    func.return %[[X]], %[[A]], %[[B]]
// SMALL-LABEL: func.func @chain
// SMALL:         df.neg
func.func @chain(%0: tensor<3xf32>) -> (tensor<3xf32>, tensor<2xi32>, tensor<1xi32>) {
  %1 = df.const {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
  %2 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %3 = df.mul %1, %2 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %4 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %5 = df.sub %3, %4 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %6 = df.neg %5 : (tensor<3xf32>) -> tensor<3xf32>
  %7 = df.const {value = dense<[1, 2, 3]> : tensor<3xi32>, dtype = i32} : () -> tensor<3xi32>
  %8, %9 = df.split %7 {num_split = 2 : i64, sizes = array<i64: 2, 1>, axis = 0 : i64} : (tensor<3xi32>) -> (tensor<2xi32>, tensor<1xi32>)
  %10 = df.add %0, %6 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %10, %8, %9 : tensor<3xf32>, tensor<2xi32>, tensor<1xi32>
}

// Not folded: a stateful op, an op with a non-constant operand, an op whose kernel raises
// (the gather index is out of range: the error stays at run time), a random op, and a
// generator that would blow a scalar up into a large constant (max-growth).
// CHECK-LABEL: func.func @guards
// CHECK:         df.print
// CHECK:         df.add %0
// CHECK:         df.gather
// CHECK:         df.stateless_random_uniform
// CHECK:         df.broadcast_to
// CHECK:         df.range
func.func @guards(%0: tensor<f32>) -> (tensor<f32>, tensor<1xf32>, tensor<2xf32>, tensor<64x64xf32>, tensor<5000xi32>) {
  %1 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %2 = df.create_token : !df.token
  %3 = df.print %1, %2 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<f32>, !df.token) -> !df.token
  %4 = df.add %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %5 = df.const {value = dense<[1.0, 2.0]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %6 = df.const {value = dense<7> : tensor<1xi32>, dtype = i32} : () -> tensor<1xi32>
  %7 = df.gather %5, %6 {axis = 0 : i64, batch_dims = 0 : i64} : (tensor<2xf32>, tensor<1xi32>) -> tensor<1xf32>
  %8 = df.const {value = dense<[1, 2]> : tensor<2xi32>, dtype = i32} : () -> tensor<2xi32>
  %9 = df.stateless_random_uniform %8 {shape = array<i64: 2>, dtype = f32} : (tensor<2xi32>) -> tensor<2xf32>
  %10 = df.broadcast_to %1 {shape = array<i64: 64, 64>} : (tensor<f32>) -> tensor<64x64xf32>
  %11 = df.range {start = 0 : i64, limit = 5000 : i64, delta = 1 : i64, dtype = i32} : () -> tensor<5000xi32>
  func.return %4, %7, %9, %10, %11 : tensor<f32>, tensor<1xf32>, tensor<2xf32>, tensor<64x64xf32>, tensor<5000xi32>
}

// Folding keeps the replaced value's type, `?` dims included (shape-inference refines them).
// CHECK-LABEL: func.func @keeps_type
// CHECK:         df.const {value = dense<[-1, 1]> : tensor<2xi64>, dtype = i64} : () -> tensor<?xi64>
func.func @keeps_type() -> tensor<?xi64> {
  %0 = df.const {value = dense<[0, 1, 0, 1]> : tensor<4xi1>, dtype = i1} : () -> tensor<4xi1>
  %1 = df.where_indices %0 : (tensor<4xi1>) -> tensor<?x1xi64>
  %2 = df.reshape %1 {shape = array<i64: -1>} : (tensor<?x1xi64>) -> tensor<?xi64>
  %3 = df.const {value = dense<2> : tensor<i64>, dtype = i64} : () -> tensor<i64>
  %4 = df.sub %2, %3 : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  func.return %4 : tensor<?xi64>
}
