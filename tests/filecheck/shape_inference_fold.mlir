// RUN: flowjit-opt %s -p shape-inference | filecheck %s

// shape and size of a static tensor become constants of the requested dtype.
// CHECK-LABEL: func.func @static
// CHECK-NOT:     df.shape
// CHECK-NOT:     df.size
// CHECK:         %[[S:.*]] = df.const {value = dense<[2, 0, 5]> : tensor<3xi64>, dtype = i64} : () -> tensor<3xi64>
// CHECK:         %[[N:.*]] = df.const {value = dense<0> : tensor<i32>, dtype = i32} : () -> tensor<i32>
// CHECK:         %[[R:.*]] = df.const {value = dense<> : tensor<0xi32>, dtype = i32} : () -> tensor<0xi32>
// CHECK:         func.return %[[S]], %[[N]], %[[R]]
func.func @static(%0: tensor<2x0x5xf32>, %1: tensor<i1>) -> (tensor<3xi64>, tensor<i32>, tensor<0xi32>) {
  %2 = df.shape %0 {out_type = i64} : (tensor<2x0x5xf32>) -> tensor<3xi64>
  %3 = df.size %0 {out_type = i32} : (tensor<2x0x5xf32>) -> tensor<i32>
  %4 = df.shape %1 {out_type = i32} : (tensor<i1>) -> tensor<0xi32>
  func.return %2, %3, %4 : tensor<3xi64>, tensor<i32>, tensor<0xi32>
}

// A partially known shape is not a constant, but its rank (size of the shape, how tf.rank
// is composed) and its known entries are: tf.shape(x)[1] and gather(shape, [1]) fold, the
// unknown dim 0 does not. An unknown rank folds nothing.
// CHECK-LABEL: func.func @partial
// CHECK:         %[[SH:.*]] = df.shape %0 {out_type = i32} : (tensor<?x3xf32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[RANK:.*]] = df.const {value = dense<2> : tensor<i32>, dtype = i32} : () -> tensor<i32>
// CHECK-NEXT:    %[[D0:.*]] = df.strided_slice %[[SH]] {{.*}} : (tensor<2xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[D1:.*]] = df.const {value = dense<3> : tensor<i32>, dtype = i32} : () -> tensor<i32>
// CHECK-NEXT:    %[[G:.*]] = df.const {value = dense<3> : tensor<1xi32>, dtype = i32} : () -> tensor<1xi32>
// CHECK-NEXT:    %[[U:.*]] = df.shape %1 {out_type = i32} : (tensor<*xf32>) -> tensor<?xi32>
// CHECK-NEXT:    %[[UR:.*]] = df.size %[[U]] {out_type = i32} : (tensor<?xi32>) -> tensor<i32>
// CHECK-NEXT:    func.return %[[RANK]], %[[D0]], %[[D1]], %[[G]], %[[UR]]
func.func @partial(%0: tensor<?x3xf32>, %1: tensor<*xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<1xi32>, tensor<i32>) {
  %2 = df.shape %0 {out_type = i32} : (tensor<?x3xf32>) -> tensor<2xi32>
  %3 = df.size %2 {out_type = i32} : (tensor<2xi32>) -> tensor<i32>
  %4 = df.strided_slice %2 {begin = array<i64: 0>, end = array<i64: 1>, strides = array<i64: 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<2xi32>) -> tensor<i32>
  %5 = df.strided_slice %2 {begin = array<i64: 1>, end = array<i64: 2>, strides = array<i64: 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<2xi32>) -> tensor<i32>
  %6 = df.const {value = dense<1> : tensor<1xi32>, dtype = i32} : () -> tensor<1xi32>
  %7 = df.gather %2, %6 {axis = 0 : i64, batch_dims = 0 : i64} : (tensor<2xi32>, tensor<1xi32>) -> tensor<1xi32>
  %8 = df.shape %1 {out_type = i32} : (tensor<*xf32>) -> tensor<?xi32>
  %9 = df.size %8 {out_type = i32} : (tensor<?xi32>) -> tensor<i32>
  func.return %3, %4, %5, %7, %9 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<1xi32>, tensor<i32>
}

// Once an operand's rank becomes known (here through an identity typed `*`), the shape's
// type is refined, and the rank folds in the same run.
// CHECK-LABEL: func.func @rank_after_refine
// CHECK-NOT:     df.size
// CHECK:         df.const {value = dense<2> : tensor<i32>, dtype = i32}
func.func @rank_after_refine(%0: tensor<?x4xf32>) -> tensor<i32> {
  %1 = df.identity %0 : (tensor<?x4xf32>) -> tensor<*xf32>
  %2 = df.shape %1 {out_type = i32} : (tensor<*xf32>) -> tensor<?xi32>
  %3 = df.size %2 {out_type = i32} : (tensor<?xi32>) -> tensor<i32>
  func.return %3 : tensor<i32>
}
