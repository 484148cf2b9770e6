// flowjit-opt with an empty pipeline parses, verifies and prints: printing what it printed
// gives the same text (regions, block arguments, tokens, resources, locations survive).
// RUN: flowjit-opt %s -p "" > %t.1.mlir
// RUN: flowjit-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: filecheck %s < %t.1.mlir
// Without a file, flowjit-opt reads stdin; --strip-debuginfo drops the locations.
// RUN: cat %s | flowjit-opt --strip-debuginfo | filecheck %s --check-prefix=STRIP

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @f(%0: tensor<3xf32>, %1: tensor<i32>, %2: !df.resource<tensor<3xf32>>) -> (tensor<3xf32>, tensor<i32>) {
// CHECK-NEXT:      %3 = df.reduce_sum %0 {keepdims = false} : (tensor<3xf32>) -> tensor<f32> loc("f/reduce_sum"("x.py":6:0))
// CHECK-NEXT:      %4 = df.const {value = dense<0.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32>
// CHECK-NEXT:      %5 = df.greater %3, %4 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:      %6 = df.cond %5 : (tensor<i1>) -> tensor<3xf32> {
// CHECK-NEXT:        %7 = df.const {value = dense<2.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32>
// CHECK-NEXT:        %8 = df.mul %0, %7 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:        df.yield %8 : tensor<3xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %9 = df.neg %0 : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:        df.yield %9 : tensor<3xf32>
// CHECK-NEXT:      } loc("f/cond"("x.py":6:0))
// CHECK:           %11, %12 = df.while(%10, %6) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) cond {
// CHECK-NEXT:      ^bb0(%13: tensor<i32>, %14: tensor<3xf32>):
// CHECK-NEXT:        %15 = df.less %13, %1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:        df.yield %15 : tensor<i1>
// CHECK-NEXT:      } body {
// CHECK:             df.yield %19, %21 : tensor<i32>, tensor<3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %22 = df.create_token : !df.token
// CHECK-NEXT:      %23 = df.assign_add_variable %2, %12, %22 : (!df.resource<tensor<3xf32>>, tensor<3xf32>, !df.token) -> !df.token
// CHECK-NEXT:      func.return %12, %11 : tensor<3xf32>, tensor<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// STRIP-NOT:   loc(
// STRIP:       df.reduce_sum %0 {keepdims = false} : (tensor<3xf32>) -> tensor<f32>{{$}}
// STRIP-NOT:   loc(

func.func @f(%0: tensor<3xf32>, %1: tensor<i32>, %2: !df.resource<tensor<3xf32>>) -> (tensor<3xf32>, tensor<i32>) {
  %3 = df.reduce_sum %0 {keepdims = false} : (tensor<3xf32>) -> tensor<f32> loc("f/reduce_sum"("x.py":6:0))
  %4 = df.const {value = dense<0.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32> loc("f/const"("x.py":6:0))
  %5 = df.greater %3, %4 : (tensor<f32>, tensor<f32>) -> tensor<i1> loc("f/greater"("x.py":6:0))
  %6 = df.cond %5 : (tensor<i1>) -> tensor<3xf32> {
    %7 = df.const {value = dense<2.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32> loc("f/const"("x.py":6:0))
    %8 = df.mul %0, %7 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> loc("f/mul"("x.py":6:0))
    df.yield %8 : tensor<3xf32>
  } else {
    %9 = df.neg %0 : (tensor<3xf32>) -> tensor<3xf32> loc("f/neg"("x.py":6:0))
    df.yield %9 : tensor<3xf32>
  } loc("f/cond"("x.py":6:0))
  %10 = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32> loc("f/const_1"("x.py":7:0))
  %11, %12 = df.while(%10, %6) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) cond {
  ^bb0(%13: tensor<i32>, %14: tensor<3xf32>):
    %15 = df.less %13, %1 : (tensor<i32>, tensor<i32>) -> tensor<i1> loc("f/less"("x.py":8:0))
    df.yield %15 : tensor<i1>
  } body {
  ^bb0(%16: tensor<i32>, %17: tensor<3xf32>):
    %18 = df.const {value = dense<1> : tensor<i32>, dtype = i32} : () -> tensor<i32> loc("f/const"("x.py":8:0))
    %19 = df.add %16, %18 : (tensor<i32>, tensor<i32>) -> tensor<i32> loc("f/add"("x.py":8:0))
    %20 = df.const {value = dense<1.000000e+00> : tensor<f32>, dtype = f32} : () -> tensor<f32> loc("f/const_1"("x.py":8:0))
    %21 = df.add %17, %20 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> loc("f/add_1"("x.py":8:0))
    df.yield %19, %21 : tensor<i32>, tensor<3xf32>
  } loc("f/while"("x.py":8:0))
  %22 = df.create_token : !df.token
  %23 = df.assign_add_variable %2, %12, %22 : (!df.resource<tensor<3xf32>>, tensor<3xf32>, !df.token) -> !df.token loc("f/assign_add_variable"("x.py":9:0))
  func.return %12, %11 : tensor<3xf32>, tensor<i32>
}
