// RUN: flowjit-opt %s -p remapper | filecheck %s

// conv2d + bias_add + relu6 (NHWC).
// CHECK-LABEL: func.func @conv_bias_relu6
// CHECK:         %[[F:.*]] = df.fused_conv2d %0, %1, %2 {strides = array<i64: 1, 1>, padding = "SAME", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>, activation = "relu6"} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    func.return %[[F]]
func.func @conv_bias_relu6(%0: tensor<1x4x4x2xf32>, %1: tensor<3x3x2x3xf32>, %2: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %3 = df.conv2d %0, %1 {strides = array<i64: 1, 1>, padding = "SAME", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %4 = df.bias_add %3, %2 {data_format = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %5 = df.relu6 %4 : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  func.return %5 : tensor<1x4x4x3xf32>
}

// NCHW: a [C, 1, 1] constant addend is a per-channel bias; it becomes a [C] constant.
// CHECK-LABEL: func.func @conv_nchw_const_bias
// CHECK:         %[[B:.*]] = df.const {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, dtype = f32} : () -> tensor<3xf32>
// CHECK-NEXT:    %[[F:.*]] = df.fused_conv2d %0, %1, %[[B]] {{{.*}}data_format = "NCHW"{{.*}}activation = ""}
// CHECK-NEXT:    func.return %[[F]]
func.func @conv_nchw_const_bias(%0: tensor<1x2x4x4xf32>, %1: tensor<3x3x2x3xf32>) -> tensor<1x3x2x2xf32> {
  %2 = df.conv2d %0, %1 {strides = array<i64: 1, 1>, padding = "VALID", explicit_paddings = array<i64>, data_format = "NCHW", dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x2x2xf32>
  %3 = df.const {value = dense<[[[1.0]], [[2.0]], [[3.0]]]> : tensor<3x1x1xf32>, dtype = f32} : () -> tensor<3x1x1xf32>
  %4 = df.add %2, %3 : (tensor<1x3x2x2xf32>, tensor<3x1x1xf32>) -> tensor<1x3x2x2xf32>
  func.return %4 : tensor<1x3x2x2xf32>
}

// Inference batch norm after constant folding: conv(x, w) * s + t, all constants.
// s folds into the filter (w * s per output channel), t becomes the bias.
// CHECK-LABEL: func.func @conv_batch_norm
// CHECK:         %[[W:.*]] = df.const {value = dense<{{\[\[\[\[}}2.000000e+00, -1.500000e+00]]]]> : tensor<1x1x1x2xf32>, dtype = f32}
// CHECK-NEXT:    %[[B:.*]] = df.const {value = dense<[5.000000e-01, -2.500000e-01]> : tensor<2xf32>, dtype = f32}
// CHECK-NEXT:    %[[F:.*]] = df.fused_conv2d %0, %[[W]], %[[B]] {{{.*}}activation = "relu"}
// CHECK-NOT:     df.mul
// CHECK:         func.return %[[F]]
func.func @conv_batch_norm(%0: tensor<2x3x3x1xf32>) -> tensor<2x3x3x2xf32> {
  %1 = df.const {value = dense<[[[[1.0, 0.5]]]]> : tensor<1x1x1x2xf32>, dtype = f32} : () -> tensor<1x1x1x2xf32>
  %2 = df.conv2d %0, %1 {strides = array<i64: 1, 1>, padding = "VALID", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<2x3x3x1xf32>, tensor<1x1x1x2xf32>) -> tensor<2x3x3x2xf32>
  %3 = df.const {value = dense<[2.0, -3.0]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %4 = df.mul %2, %3 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %5 = df.const {value = dense<[0.5, -0.25]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %6 = df.add %4, %5 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %7 = df.relu %6 : (tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
  func.return %7 : tensor<2x3x3x2xf32>
}

// Not folded: the scale is not a constant; a zero scale (0 * inf would be NaN unfolded);
// a filter that is an argument. Plain conv2d without a bias is not fused either.
// CHECK-LABEL: func.func @conv_no_fold
// CHECK-NOT:     df.fused_conv2d
// CHECK:         func.return
func.func @conv_no_fold(%0: tensor<2x3x3x1xf32>, %1: tensor<2xf32>, %2: tensor<1x1x1x2xf32>) -> (tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>) {
  %3 = df.const {value = dense<[[[[1.0, 0.5]]]]> : tensor<1x1x1x2xf32>, dtype = f32} : () -> tensor<1x1x1x2xf32>
  %4 = df.const {value = dense<[0.5, -0.25]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %5 = df.conv2d %0, %3 {strides = array<i64: 1, 1>, padding = "VALID", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<2x3x3x1xf32>, tensor<1x1x1x2xf32>) -> tensor<2x3x3x2xf32>
  %6 = df.mul %5, %1 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %7 = df.add %6, %4 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %8 = df.conv2d %0, %3 {strides = array<i64: 1, 1>, padding = "VALID", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<2x3x3x1xf32>, tensor<1x1x1x2xf32>) -> tensor<2x3x3x2xf32>
  %9 = df.const {value = dense<[0.0, 2.0]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %10 = df.mul %8, %9 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %11 = df.add %10, %4 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %12 = df.conv2d %0, %2 {strides = array<i64: 1, 1>, padding = "VALID", explicit_paddings = array<i64>, data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<2x3x3x1xf32>, tensor<1x1x1x2xf32>) -> tensor<2x3x3x2xf32>
  %13 = df.mul %12, %9 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  %14 = df.add %13, %4 : (tensor<2x3x3x2xf32>, tensor<2xf32>) -> tensor<2x3x3x2xf32>
  func.return %7, %11, %14 : tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>
}
