// --target-legality reports, with code E0206, the builtins, memory spaces and
// element types a target does not implement (src/target/).
// RUN: %vx-opt %s -split-input-file --target-legality=target=cpu -verify-diagnostics
// The table is per target: b200 has TMEM, not SMEM, and its element types
// are not the cpu's concern; a buffer of its own in TMEM it does not build
// (the CUDA layer would place it in shared memory, uncounted).
// RUN: not %vx-opt %s --target-legality=target=b200 2>&1 | FileCheck %s --check-prefix=B200
// RUN: not %vx-opt %s --target-legality=target=quantum 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown target `quantum`

// Everything here exists on cpu.
func.func @fine(%t: !vx.tensor<128x128xf32>) {
  %k = vx.transfer_async %t : !vx.tensor<128x128xf32> -> !vx.token<128x128xf32, vmem>
  %b = vx.wait %k : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  vx.matmul_acc %b : !vx.pinned<128x128xf32, vmem>
  return
}

// -----

func.func @smem(%t: !vx.tensor<128xf32>) {
  // expected-error @+1 {{[E0206] `Memory::SMEM` is not available on target `cpu`}}
  %b = vx.transfer %t : !vx.tensor<128xf32> -> !vx.pinned<128xf32, smem>
  return
}

// -----

func.func @tmem() {
  // expected-error @+1 {{[E0206] `Memory::TMEM` is not available on target `cpu`}}
  %b = vx.zeros : !vx.pinned<128x128xf32, tmem>
  return
}

// -----

func.func @f16() {
  // expected-error @+1 {{[E0206] `Tensor<f16, _>` is not available on target `cpu`}}
  %b = vx.zeros : !vx.pinned<128xf16, vmem>
  return
}

// B200-NOT: Memory::TMEM`
// B200-NOT: f16
// B200: error: [E0206] `Memory::SMEM` is not available on target `b200`
// B200-NOT: Memory::TMEM`
// B200: error: [E0206] `a buffer in Memory::TMEM (the CUDA layer places buffers in Memory::VMEM, shared memory)` is not available on target `b200`
// B200-NOT: Memory::TMEM`
// B200-NOT: f16
