// A user's FileCheck test of examples/custom_pass.py, run with the project's lit setup:
//   python -m flowjit.testing.filecheck examples/filecheck --load-plugin examples/custom_pass.py
// RUN: flowjit-opt %s -p "default,mul-by-two-to-add" --strip-debuginfo | filecheck %s

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %[[SUM:.*]] = df.add %0, %0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[SUM]]
func.func @twice(%0: tensor<3xf32>) -> tensor<3xf32> {
  %1 = df.const {value = dense<2.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %2 = df.mul %1, %0 : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}

// An integer 2 is left alone (the pass rewrites floating-point constants only).
// CHECK-LABEL: func.func @int_twice
// CHECK:         df.mul
func.func @int_twice(%0: tensor<3xi32>) -> tensor<3xi32> {
  %1 = df.const {value = dense<2> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %2 = df.mul %0, %1 : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  func.return %2 : tensor<3xi32>
}
