// RUN: flowjit-opt %s -p constant-folding | filecheck %s
// RUN: flowjit-opt %s --lower-to stablehlo | filecheck %s --check-prefix=HLO

// An attribute left out of the text is its declared default in every backend (cumsum: axis
// 0, not exclusive, not reversed; softmax: axis -1), as `apply` fills it eagerly; before, the
// verifier read it as None and refused the op.
// CHECK-LABEL: func.func @defaults
// CHECK-NEXT:    %{{.*}} = df.const {value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [4.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>, dtype = f32}
// HLO-LABEL: func.func public @main
// HLO:         stablehlo.reduce_window{{.*}}window_dimensions = array<i64: 2, 1>
// HLO:         stablehlo.exponential
func.func @defaults(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>) {
  %0 = df.const {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, dtype = f32} : () -> tensor<2x2xf32>
  %1 = df.cumsum %0 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = df.softmax %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1, %2 : tensor<2x2xf32>, tensor<2x3xf32>
}
