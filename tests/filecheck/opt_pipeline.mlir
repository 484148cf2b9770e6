// Pipeline options of flowjit-opt: the IR after every pass, a timing table, the default
// schedule, and -o.
// RUN: flowjit-opt %s -p cse,dce --print-ir-after-all -o %t.out 2> %t.err
// RUN: filecheck %s --check-prefix=DUMP < %t.err
// RUN: filecheck %s --check-prefix=OUT < %t.out
// RUN: flowjit-opt %s -p cse,dce --time-passes -o %t.out 2>&1 | filecheck %s --check-prefix=TIME
// RUN: flowjit-opt %s --default-pipeline | filecheck %s --check-prefix=OUT

// DUMP:      // -----// IR Dump After cse //----- //
// DUMP-NEXT: builtin.module {
// DUMP:        %[[MM:.*]] = df.matmul %0, %1
// DUMP-NOT:    df.matmul
// DUMP:        df.neg
// DUMP:        df.add %[[MM]], %[[MM]]
// DUMP:      // -----// IR Dump After dce //----- //
// DUMP-NEXT: builtin.module {
// DUMP-NOT:    df.neg
// DUMP:        func.return

// OUT:       func.func @f
// OUT-COUNT-1: df.matmul
// OUT-NOT:   df.matmul
// OUT-NOT:   df.neg
// OUT:       func.return

// TIME:      ... Execution time report ...
// TIME:      Total Execution Time: {{[0-9.]+}} seconds
// TIME:      ----Wall Time----  ----Name----
// TIME:      parse
// TIME:      verify
// TIME:      cse  [7 -> 6 ops]
// TIME:      dce  [6 -> 5 ops]
// TIME:      print
// TIME:      (100.0%)  Total

func.func @f(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %2 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %4 = df.neg %3 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = df.add %2, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %5 : tensor<2x4xf32>
}
