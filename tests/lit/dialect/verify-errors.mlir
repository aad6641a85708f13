// Each verifier rejects what the language's types rule out.
// RUN: %vx-opt %s -split-input-file -verify-diagnostics

func.func @slot_shape(%b: !vx.pinned<2x128x128xf32, vmem>, %i: index) {
  // expected-error @+1 {{result must be the base without its leading dimension}}
  %s = vx.slot %b[%i] : !vx.pinned<2x128x128xf32, vmem> -> !vx.pinned<64x128xf32, vmem>
  return
}

// -----

func.func @slot_space(%b: !vx.pinned<2x128xf32, vmem>, %i: index) {
  // expected-error @+1 {{result must be the base without its leading dimension}}
  %s = vx.slot %b[%i] : !vx.pinned<2x128xf32, vmem> -> !vx.pinned<128xf32, smem>
  return
}

// -----

func.func @slot_rank1(%b: !vx.pinned<128xf32, vmem>, %i: index) {
  // expected-error @+1 {{base must have rank >= 2}}
  %s = vx.slot %b[%i] : !vx.pinned<128xf32, vmem> -> !vx.pinned<128xf32, vmem>
  return
}

// -----

func.func @vec_get(%v: !vx.vec<!vx.tensor<128x128xf32>>, %i: index) {
  // expected-error @+1 {{result type must be the Vec's element type}}
  %t = vx.vec_get %v[%i] : !vx.vec<!vx.tensor<128x128xf32>> -> !vx.tensor<128x64xf32>
  return
}

// -----

func.func @transfer_shape(%t: !vx.tensor<128x128xf32>) {
  // expected-error @+1 {{source and result must have one shape and element type}}
  %p = vx.transfer %t : !vx.tensor<128x128xf32> -> !vx.pinned<128x128xbf16, vmem>
  return
}

// -----

func.func @async_void(%t: !vx.tensor<128x128xf32>) {
  // expected-error @+1 {{the token must carry a buffer}}
  %k = vx.transfer_async %t : !vx.tensor<128x128xf32> -> !vx.token<vmem>
  return
}

// -----

func.func @into_carries(%t: !vx.tensor<128xf32>, %d: !vx.pinned<128xf32, vmem>) {
  // expected-error @+1 {{carries no buffer}}
  %k = vx.transfer_async_into %t, %d : !vx.tensor<128xf32>, !vx.pinned<128xf32, vmem> -> !vx.token<128xf32, vmem>
  return
}

// -----

func.func @into_space(%t: !vx.tensor<128xf32>, %d: !vx.pinned<128xf32, vmem>) {
  // expected-error @+1 {{the token's memory space must be the destination's}}
  %k = vx.transfer_async_into %t, %d : !vx.tensor<128xf32>, !vx.pinned<128xf32, vmem> -> !vx.token<smem>
  return
}

// -----

func.func @wait_result(%k: !vx.token<128xf32, vmem>) {
  // expected-error @+1 {{has a result exactly when its token carries a buffer}}
  vx.wait %k : !vx.token<128xf32, vmem>
  return
}

// -----

func.func @wait_type(%k: !vx.token<128xf32, vmem>) {
  // expected-error @+1 {{result must be}}
  %b = vx.wait %k : !vx.token<128xf32, vmem> -> !vx.pinned<64xf32, vmem>
  return
}

// -----

func.func @ready(%b: !vx.pinned<128xf32, vmem>) {
  // expected-error @+1 {{takes a buffer exactly when its token carries one}}
  %k = vx.ready %b : !vx.pinned<128xf32, vmem> -> !vx.token<vmem>
  return
}

// -----

func.func @store_async(%b: !vx.pinned<128xf32, vmem>, %t: !vx.tensor<128xf32>) {
  // expected-error @+1 {{returns a `!vx.token<hbm>`}}
  %k = vx.store_async %b, %t : !vx.pinned<128xf32, vmem>, !vx.tensor<128xf32> -> !vx.token<vmem>
  return
}

// -----

func.func @store_shape(%b: !vx.pinned<128xf32, vmem>, %t: !vx.tensor<64xf32>) {
  // expected-error @+1 {{source and destination must have one shape}}
  vx.store %b, %t : !vx.pinned<128xf32, vmem>, !vx.tensor<64xf32>
  return
}

// -----

func.func @matmul_rank(%x: !vx.pinned<128xf32, vmem>) {
  // expected-error @+1 {{x must have rank 2}}
  vx.matmul_acc %x : !vx.pinned<128xf32, vmem>
  return
}

// -----

func.func @matmul_space(%x: !vx.pinned<128x128xf32, smem>) {
  // expected-error @+1 {{x must be in vmem}}
  vx.matmul_acc %x : !vx.pinned<128x128xf32, smem>
  return
}

// -----

func.func @weights_space(%w: !vx.pinned<128x128xf32, hbm>) {
  // expected-error @+1 {{w must be in vmem}}
  vx.load_weights %w : !vx.pinned<128x128xf32, hbm>
  return
}

// -----

func.func @store_acc_f32(%d: !vx.tensor<128x128xbf16>) {
  // expected-error @+1 {{dst must hold f32}}
  vx.store_acc %d : !vx.tensor<128x128xbf16>
  return
}

// -----

func.func @mma_shapes(%acc: !vx.pinned<128x64xf32, vmem>, %a: !vx.pinned<128x32xf32, vmem>, %b: !vx.pinned<16x64xf32, vmem>) {
  // expected-error @+1 {{shapes must be acc[R, N] += a[R, K] @ b[K, N]}}
  vx.mma %acc, %a, %b : !vx.pinned<128x64xf32, vmem>, !vx.pinned<128x32xf32, vmem>, !vx.pinned<16x64xf32, vmem>
  return
}

// -----

func.func @mma_acc(%acc: !vx.pinned<128x128xbf16, vmem>, %a: !vx.pinned<128x128xbf16, vmem>) {
  // expected-error @+1 {{acc must hold f32}}
  vx.mma %acc, %a, %a : !vx.pinned<128x128xbf16, vmem>, !vx.pinned<128x128xbf16, vmem>, !vx.pinned<128x128xbf16, vmem>
  return
}

// -----

func.func @relu_space(%x: !vx.pinned<128xf32, smem>) {
  // expected-error @+1 {{result must be in vmem}}
  %y = vx.unary "relu" %x : !vx.pinned<128xf32, smem>
  return
}

// -----

func.func @scale_into_space(%y: !vx.pinned<128xf32, smem>, %x: !vx.pinned<128xf32, smem>, %s: f32) {
  // expected-error @+1 {{y must be in vmem}}
  vx.scale_into %y, %x, %s : !vx.pinned<128xf32, smem>
  return
}

// -----

func.func @load_elem_rank(%b: !vx.pinned<2x128xf32, vmem>, %i: index) {
  // expected-error @+1 {{base must have rank 1}}
  %e = vx.load_elem %b[%i] : !vx.pinned<2x128xf32, vmem> -> f32
  return
}

// -----

func.func @store_elem_type(%b: !vx.pinned<128xf32, vmem>, %i: index, %v: f64) {
  // expected-error @+1 {{value must have the element type}}
  vx.store_elem %v, %b[%i] : f64, !vx.pinned<128xf32, vmem>
  return
}

// -----

// expected-error @+1 {{tensor dimensions must be positive}}
func.func @zero_dim(%b: !vx.pinned<0x128xf32, vmem>) {
  return
}

// -----

// expected-error @+1 {{expected a memory space}}
func.func @bad_space(%b: !vx.pinned<128xf32, l2>) {
  return
}
