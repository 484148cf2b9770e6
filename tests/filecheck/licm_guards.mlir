// RUN: flowjit-opt %s -p loop-invariant-code-motion | filecheck %s

// What must stay in the body: a variable read (stateful, carries the token), an op on the
// read value, an integer division (a zero divisor would raise even when the loop runs zero
// times), an op on a dynamically shaped value, and anything using a loop value.
// A float division by an invariant value is safe to move.
// CHECK-LABEL: func.func @guards
// CHECK:         %[[FDIV:.*]] = df.div %3, %3 : (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    df.while
// CHECK:         body {
// CHECK:           df.read_variable
// CHECK:           df.mul
// CHECK:           df.div %1, %1 : (tensor<i32>, tensor<i32>)
// CHECK:           df.neg %2 : (tensor<?xf32>)
// CHECK:           df.yield
func.func @guards(%0: !df.resource<tensor<f32>>, %1: tensor<i32>, %2: tensor<?xf32>, %3: tensor<f32>, %4: tensor<f32>, %5: tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<f32>) {
  %6 = df.create_token : !df.token
  %7, %8, %9, %10, %11 = df.while(%4, %1, %2, %3, %6) : (tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<f32>, !df.token) -> (tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<f32>, !df.token) cond {
  ^bb0(%12: tensor<f32>, %13: tensor<i32>, %14: tensor<?xf32>, %15: tensor<f32>, %16: !df.token):
    df.yield %5 : tensor<i1>
  } body {
  ^bb1(%17: tensor<f32>, %18: tensor<i32>, %19: tensor<?xf32>, %20: tensor<f32>, %21: !df.token):
    %22, %23 = df.read_variable %0, %21 : (!df.resource<tensor<f32>>, !df.token) -> (tensor<f32>, !df.token)
    %24 = df.mul %22, %3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %25 = df.div %1, %1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %26 = df.neg %2 : (tensor<?xf32>) -> tensor<?xf32>
    %27 = df.div %3, %3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %28 = df.add %24, %27 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    df.yield %28, %25, %26, %20, %23 : tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<f32>, !df.token
  }
  func.return %7, %8, %9, %10 : tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<f32>
}

// The cond region runs at least once, before the body: its ops move even if they may
// raise (an integer division), unless it has a side effect an error would overtake.
// CHECK-LABEL: func.func @cond_region
// CHECK:         df.floordiv %1, %1
// CHECK-NEXT:    df.while
// CHECK:         } body {
// CHECK-LABEL: func.func @cond_with_print
// CHECK:         df.while
// CHECK:           df.print
// CHECK-NEXT:      df.floordiv %1, %1
func.func @cond_region(%0: tensor<i32>, %1: tensor<i32>) -> tensor<i32> {
  %2 = df.while(%0) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%3: tensor<i32>):
    %4 = df.floordiv %1, %1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %5 = df.less %3, %4 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    df.yield %5 : tensor<i1>
  } body {
  ^bb1(%6: tensor<i32>):
    %7 = df.add %6, %1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    df.yield %7 : tensor<i32>
  }
  func.return %2 : tensor<i32>
}
func.func @cond_with_print(%0: tensor<i32>, %1: tensor<i32>) -> tensor<i32> {
  %t = df.create_token : !df.token
  %2, %t2 = df.while(%0, %t) : (tensor<i32>, !df.token) -> (tensor<i32>, !df.token) cond {
  ^bb0(%3: tensor<i32>, %t3: !df.token):
    %t4 = df.print %3, %t3 {template = "{}", stream = "stderr", summarize = 3 : i64, end = "\0A"} : (tensor<i32>, !df.token) -> !df.token
    %4 = df.floordiv %1, %1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %5 = df.less %3, %4 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    df.yield %5 : tensor<i1>
  } body {
  ^bb1(%6: tensor<i32>, %t5: !df.token):
    %7 = df.add %6, %1 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    df.yield %7, %t5 : tensor<i32>, !df.token
  }
  func.return %2 : tensor<i32>
}
