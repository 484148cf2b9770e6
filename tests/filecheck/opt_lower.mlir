// --lower-to lowers the df module after the passes: StableHLO text, HLO, optimized HLO.
// RUN: flowjit-opt %s --lower-to stablehlo --strip-debuginfo | filecheck %s
// RUN: flowjit-opt %s -p cse,dce --lower-to stablehlo --strip-debuginfo | filecheck %s --check-prefix=CSE
// RUN: flowjit-opt %s --lower-to hlo | filecheck %s --check-prefix=HLO
// RUN: flowjit-opt %s -p cse --lower-to optimized-hlo | filecheck %s --check-prefix=OPT
// Shapes known only at run time cannot be lowered: a diagnostic, not a traceback.
// RUN: sed -e 's/tensor<2x3xf32>/tensor<?x3xf32>/g' -e 's/tensor<2x4xf32>/tensor<?x4xf32>/g' %s > %t.mlir
// RUN: not flowjit-opt %t.mlir --lower-to stablehlo 2>&1 | filecheck %s --check-prefix=DYN

// CHECK:       func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    %[[MM:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]{{.*}} -> tensor<2x4xf32>
// CHECK-NEXT:    %[[MM2:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[MM]], %[[MM2]] : tensor<2x4xf32>
// Without passes the unused negation is still there.
// CHECK-NEXT:    stablehlo.negate %[[SUM]] : tensor<2x4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ZEROS:.*]] = stablehlo.broadcast_in_dim %[[ZERO]], dims = [] : (tensor<f32>) -> tensor<2x4xf32>
// relu is a select that keeps -0.0 (XLA's maximum would give +0.0)
// CHECK-NEXT:    %[[NEG:.*]] = stablehlo.compare LT, %[[SUM]], %[[ZEROS]], FLOAT
// CHECK-NEXT:    %[[RELU:.*]] = stablehlo.select %[[NEG]], %[[ZEROS]], %[[SUM]] : tensor<2x4xi1>, tensor<2x4xf32>
// CHECK:         return %[[RELU]] : tensor<2x4xf32>

// After cse the duplicate product is gone; dce dropped the unused negation.
// CSE:         stablehlo.dot_general
// CSE-NOT:     stablehlo.dot_general
// CSE-NOT:     stablehlo.negate
// CSE:         stablehlo.add %[[MM:.*]], %[[MM]] : tensor<2x4xf32>

// HLO:         HloModule jit_dense, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->f32[2,4]{1,0}}
// HLO:         ENTRY
// Each instruction carries TF's metadata: the df op, the node and the user's line.
// HLO:         dot({{.*}}metadata={op_type="matmul" op_name="dense/matmul" source_file="x.py" source_line=3
// HLO:         dot({{.*}}metadata={op_type="matmul" op_name="dense/matmul_1" source_file="x.py" source_line=4
// HLO:         ROOT {{.*}} select(

// XLA's optimized module is scheduled; the single dot survives.
// OPT:         HloModule jit_dense, is_scheduled=true
// OPT-COUNT-1: dot(
// OPT-NOT:     dot(

// DYN:         opt_lower.mlir.tmp.mlir:[[# @LINE + 6]]:1: error: --lower-to stablehlo needs static shapes: argument #0 of @dense has type tensor<?x3xf32>
// DYN-NEXT:    func.func @dense(%0: tensor<?x3xf32>, %1: tensor<3x4xf32>) -> tensor<?x4xf32> {
// DYN-NEXT:    {{^\^$}}
// DYN:         error: --lower-to stablehlo needs static shapes: 'df.matmul' produces tensor<?x4xf32>
// DYN-NOT:     Traceback

func.func @dense(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %2 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("dense/matmul"("x.py":3:0))
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("dense/matmul_1"("x.py":4:0))
  %4 = df.add %2, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = df.neg %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = df.relu %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %6 : tensor<2x4xf32>
}
