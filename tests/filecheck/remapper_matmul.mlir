// RUN: flowjit-opt %s -p remapper | filecheck %s

// x @ w + b then relu: the traced form (df.add with a rank-1 bias of the last dim) fuses.
// CHECK-LABEL: func.func @dense_relu
// CHECK-NOT:     df.matmul
// CHECK:         %[[F:.*]] = df.fused_matmul %0, %1, %2 {transpose_a = false, transpose_b = true, activation = "relu"} : (tensor<?x3xf32>, tensor<5x3xf32>, tensor<5xf32>) -> tensor<?x5xf32>
// CHECK-NOT:     df.add
// CHECK-NOT:     df.relu
// CHECK:         func.return %[[F]]
func.func @dense_relu(%0: tensor<?x3xf32>, %1: tensor<5x3xf32>, %2: tensor<5xf32>) -> tensor<?x5xf32> {
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = true} : (tensor<?x3xf32>, tensor<5x3xf32>) -> tensor<?x5xf32>
  %4 = df.add %2, %3 : (tensor<5xf32>, tensor<?x5xf32>) -> tensor<?x5xf32>
  %5 = df.relu %4 : (tensor<?x5xf32>) -> tensor<?x5xf32>
  func.return %5 : tensor<?x5xf32>
}

// bias_add + leaky_relu keeps the slope; the activation's location names the fused op.
// CHECK-LABEL: func.func @bias_add_leaky
// CHECK:         df.fused_matmul %0, %1, %2 {transpose_a = false, transpose_b = false, activation = "leaky_relu", alpha = 1.000000e-01 : f64}
// CHECK-SAME:    loc("f/leaky")
// CHECK-NEXT:    func.return
func.func @bias_add_leaky(%0: tensor<4x3xf32>, %1: tensor<3x5xf32>, %2: tensor<5xf32>) -> tensor<4x5xf32> {
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32> loc("f/matmul")
  %4 = df.bias_add %3, %2 {data_format = "NHWC"} : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32> loc("f/bias")
  %5 = df.leaky_relu %4 {alpha = 1.000000e-01 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32> loc("f/leaky")
  func.return %5 : tensor<4x5xf32>
}

// The biased value is also returned: matmul + bias fuse, the relu stays on the fused value.
// CHECK-LABEL: func.func @bias_used_twice
// CHECK:         %[[F:.*]] = df.fused_matmul %0, %1, %2 {transpose_a = false, transpose_b = false, activation = ""}
// CHECK-NEXT:    %[[R:.*]] = df.relu %[[F]]
// CHECK-NEXT:    func.return %[[F]], %[[R]]
func.func @bias_used_twice(%0: tensor<4x3xf32>, %1: tensor<3x5xf32>, %2: tensor<5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %4 = df.add %3, %2 : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %5 = df.relu %4 : (tensor<4x5xf32>) -> tensor<4x5xf32>
  func.return %4, %5 : tensor<4x5xf32>, tensor<4x5xf32>
}

// No fusion: the product is also returned; a [4, 1] bias broadcasts along the wrong axis;
// a full [4, 5] addend is not a bias; a [5] bias does not reach a product with unknown
// columns (no static proof that it is one value per column).
// CHECK-LABEL: func.func @no_fusion
// CHECK-NOT:     df.fused_matmul
// CHECK:         func.return
func.func @no_fusion(%0: tensor<4x3xf32>, %1: tensor<3x5xf32>, %2: tensor<5xf32>, %3: tensor<4x1xf32>, %4: tensor<4x5xf32>, %5: tensor<3x?xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x?xf32>) {
  %6 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %7 = df.add %6, %2 : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %8 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %9 = df.add %8, %3 : (tensor<4x5xf32>, tensor<4x1xf32>) -> tensor<4x5xf32>
  %10 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %11 = df.add %10, %4 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %12 = df.matmul %0, %5 {transpose_a = false, transpose_b = false} : (tensor<4x3xf32>, tensor<3x?xf32>) -> tensor<4x?xf32>
  %13 = df.add %12, %2 : (tensor<4x?xf32>, tensor<5xf32>) -> tensor<4x?xf32>
  func.return %6, %7, %9, %11, %13 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x?xf32>
}
