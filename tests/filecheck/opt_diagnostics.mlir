// Each part below is malformed in one way; --verify-diagnostics checks that flowjit-opt
// reports exactly the errors the `expected-error` comments name, on those lines.
// RUN: flowjit-opt %s --split-input-file --verify-diagnostics
// The same errors without --verify-diagnostics: file:line:col, the line, a caret, status 1.
// RUN: not flowjit-opt %s --split-input-file 2>&1 | filecheck %s
// A pass pipeline that does not parse, names an unknown pass or a wrong option is reported
// against the spec, and nothing runs.
// RUN: not flowjit-opt %s -p "cse,,dce" 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not flowjit-opt %s -p "cse,no-such-pass" 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not flowjit-opt %s -p "cse{bogus=1}" 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not flowjit-opt %s -p "constant-folding{max-size=big}" 2>&1 | filecheck %s --check-prefix=TYPE

// SPEC:      <pass-pipeline>:1:5: error: bad pass pipeline: Expected pass name here
// SPEC-NEXT: cse,,dce
// SPEC-NEXT: {{^    \^$}}
// UNKNOWN:      <pass-pipeline>:1:5: error: unknown pass 'no-such-pass'; registered passes: {{.*}}cse, dce
// UNKNOWN-NEXT: cse,no-such-pass
// UNKNOWN-NEXT: {{^    \^$}}
// OPTION:    <pass-pipeline>:1:1: error: pass 'cse': {{.*}}"bogus"
// TYPE:      <pass-pipeline>:1:1: error: pass 'constant-folding': {{.*}}max-size: int

// CHECK-NOT: Traceback
// CHECK: opt_diagnostics.mlir:[[# @LINE + 6]]:3: error: df.add: result types ['float32[3]'] do not match the inferred ['float32[2]']
// CHECK-NEXT: {{^}}  %1 = df.add %0, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
// CHECK-NEXT: {{^  \^$}}
// CHECK: opt_diagnostics.mlir:[[# @LINE + 4]]:3: error: df.neg: result types ['float64[2]'] do not match the inferred ['float32[2]']
func.func @wrong_result_types(%0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{result types ['float32[3]'] do not match the inferred ['float32[2]']}}
  %1 = df.add %0, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  %2 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf64> // expected-error {{df.neg: result types}}
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK: opt_diagnostics.mlir:[[# @LINE + 3]]:3: error: df.matmul: {{.*}}
func.func @bad_shapes(%0: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error@below {{df.matmul}}
  %1 = df.matmul %0, %0 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  func.return %1 : tensor<2x2xf32>
}

// -----

// CHECK: opt_diagnostics.mlir:[[# @LINE + 2]]:3: error: 'func.return' op {{.*}}types
func.func @bad_return(%0: tensor<2xf32>) -> tensor<3xf32> {
  func.return %0 : tensor<2xf32>  // expected-error {{function output types}}
}

// -----

// CHECK: opt_diagnostics.mlir:[[# @LINE + 3]]:8: error: Operation df.no_such_op is not registered
// CHECK-NEXT: {{^}}  %1 = df.no_such_op %0 : (tensor<2xf32>) -> tensor<2xf32>
func.func @unknown_op(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.no_such_op %0 : (tensor<2xf32>) -> tensor<2xf32>  // expected-error {{is not registered}}
  func.return %1 : tensor<2xf32>
}

// -----

// CHECK: opt_diagnostics.mlir:[[# @LINE + 3]]:15: error: values used but not defined: [%7]
func.func @undefined_value(%0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{values used but not defined: [%7]}}
  func.return %7 : tensor<2xf32>
}

// -----

// A stateful op must take and return a token.
// CHECK: opt_diagnostics.mlir:[[# @LINE + 3]]:3: error: df.assign_variable is stateful
func.func @no_token(%0: !df.resource<tensor<2xf32>>, %1: tensor<2xf32>) {
  // expected-error@+1 {{df.assign_variable is stateful: it takes and returns a !df.token last}}
  df.assign_variable %0, %1 : (!df.resource<tensor<2xf32>>, tensor<2xf32>) -> ()
  func.return
}

// -----

// A valid part in between prints normally.
func.func @fine(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.neg %0 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
