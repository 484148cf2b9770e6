// RUN: flowjit-opt %s -p constant-folding | filecheck %s
// RUN: flowjit-opt %s -p "constant-folding{fold-branches=false}" | filecheck %s --check-prefix=OFF

// A constant predicate inlines the taken branch in place of the cond. The stateful branch's
// ops keep their order and the token: the variable write takes the token the cond captured,
// and the print after the cond takes the write's token (the cond's token result).
// CHECK-LABEL: func.func @stateful_then
// CHECK:         %[[T:.*]] = df.create_token : !df.token
// CHECK-NEXT:    %[[C:.*]] = df.const {value = dense<1.000000e+00> : tensor<f32>, dtype = f32}
// CHECK-NEXT:    %[[W:.*]] = df.assign_add_variable %1, %[[C]], %[[T]]
// CHECK-NEXT:    %[[P:.*]] = df.print %0, %[[W]]
// CHECK-NEXT:    func.return %0 : tensor<3xf32>
// OFF-LABEL: func.func @stateful_then
// OFF:         df.cond
func.func @stateful_then(%0: tensor<3xf32>, %1: !df.resource<tensor<f32>>) -> tensor<3xf32> {
  %2 = df.const {value = dense<true> : tensor<i1>, dtype = i1} : () -> tensor<i1>
  %3 = df.create_token : !df.token
  %4, %5 = df.cond %2 : (tensor<i1>) -> (tensor<3xf32>, !df.token) {
    %6 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
    %7 = df.assign_add_variable %1, %6, %3 : (!df.resource<tensor<f32>>, tensor<f32>, !df.token) -> !df.token
    df.yield %0, %7 : tensor<3xf32>, !df.token
  } else {
    %8 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
    %9 = df.mul %0, %8 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    df.yield %9, %3 : tensor<3xf32>, !df.token
  }
  %10 = df.print %0, %5 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<3xf32>, !df.token) -> !df.token
  func.return %4 : tensor<3xf32>
}

// The else branch is pure here: its value replaces the cond's, and the cond's token result
// becomes the captured token. A branch yielding a more static type than the cond's result
// goes through an identity of the cond's type.
// CHECK-LABEL: func.func @pure_else
// CHECK:         %[[T:.*]] = df.create_token : !df.token
// CHECK-NEXT:    df.const {value = dense<2.000000e+00> : tensor<f32>, dtype = f32}
// CHECK-NEXT:    %[[M:.*]] = df.mul %0, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[I:.*]] = df.identity %[[M]] : (tensor<3xf32>) -> tensor<?xf32>
// CHECK-NEXT:    df.print %0, %[[T]]
// CHECK-NEXT:    func.return %[[I]] : tensor<?xf32>
func.func @pure_else(%0: tensor<3xf32>, %1: !df.resource<tensor<f32>>) -> tensor<?xf32> {
  %2 = df.const {value = dense<false> : tensor<i1>, dtype = i1} : () -> tensor<i1>
  %3 = df.create_token : !df.token
  %4, %5 = df.cond %2 : (tensor<i1>) -> (tensor<?xf32>, !df.token) {
    %6 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
    %7 = df.assign_add_variable %1, %6, %3 : (!df.resource<tensor<f32>>, tensor<f32>, !df.token) -> !df.token
    df.yield %0, %7 : tensor<3xf32>, !df.token
  } else {
    %8 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
    %9 = df.mul %0, %8 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    df.yield %9, %3 : tensor<3xf32>, !df.token
  }
  %10 = df.print %0, %5 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<3xf32>, !df.token) -> !df.token
  func.return %4 : tensor<?xf32>
}

// switch_case with a constant index; out of range picks the last branch, as at run time.
// A cond on a non-constant predicate stays.
// CHECK-LABEL: func.func @case_and_dynamic
// CHECK-NOT:     df.case
// CHECK:         %[[N:.*]] = df.neg %0
// CHECK:         %[[D:.*]] = df.cond %1
// CHECK:         func.return %[[N]], %[[D]]
func.func @case_and_dynamic(%0: tensor<2xf32>, %1: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %2 = df.const {value = dense<7> : tensor<i32>, dtype = i32} : () -> tensor<i32>
  %3 = df.case %2 : (tensor<i32>) -> tensor<2xf32> {
    df.yield %0 : tensor<2xf32>
  }, {
    %4 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
    df.yield %4 : tensor<2xf32>
  }
  %5 = df.cond %1 : (tensor<i1>) -> tensor<2xf32> {
    df.yield %0 : tensor<2xf32>
  } else {
    df.yield %3 : tensor<2xf32>
  }
  func.return %3, %5 : tensor<2xf32>, tensor<2xf32>
}
