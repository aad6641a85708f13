// --sync-baseline: each asynchronous copy becomes its blocking form plus an
// already-complete token; the waits and everything else stay as they were.
// RUN: %vx-opt --sync-baseline %s | FileCheck %s

// CHECK-LABEL: func.func @copies
func.func @copies(%t: !vx.tensor<128x128xf32>, %out: !vx.tensor<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %slots = vx.zeros : !vx.pinned<2x128x128xf32, vmem>
  %slot = vx.slot %slots[%c0] : !vx.pinned<2x128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  // CHECK:      %[[B:.*]] = vx.transfer %arg0 : !vx.tensor<128x128xf32> -> !vx.pinned<128x128xf32, vmem>
  // CHECK-NEXT: %[[K:.*]] = vx.ready %[[B]] : !vx.pinned<128x128xf32, vmem> -> !vx.token<128x128xf32, vmem>
  %k = vx.transfer_async %t : !vx.tensor<128x128xf32> -> !vx.token<128x128xf32, vmem>
  // CHECK-NEXT: vx.transfer_into %arg0, %[[SLOT:.*]] : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem>
  // CHECK-NEXT: %[[KI:.*]] = vx.ready -> !vx.token<vmem>
  %ki = vx.transfer_async_into %t, %slot : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem> -> !vx.token<vmem>
  // CHECK-NEXT: %[[X:.*]] = vx.wait %[[K]] : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  %x = vx.wait %k : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  // CHECK-NEXT: vx.wait %[[KI]] : !vx.token<vmem>
  vx.wait %ki : !vx.token<vmem>
  // CHECK-NEXT: vx.store %[[X]], %arg1 : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32>
  // CHECK-NEXT: %[[KS:.*]] = vx.ready -> !vx.token<hbm>
  %ks = vx.store_async %x, %out : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32> -> !vx.token<hbm>
  // CHECK-NEXT: vx.wait %[[KS]] : !vx.token<hbm>
  vx.wait %ks : !vx.token<hbm>
  return
}

// Copies inside loops are rewritten in place; the loop keeps carrying the token.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!vx.token<128xf32, vmem>)
// CHECK:   vx.transfer %
// CHECK-NEXT: vx.ready
// CHECK-NOT: transfer_async
func.func @loop(%v: !vx.vec<!vx.tensor<128xf32>>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t0 = vx.vec_get %v[%c0] : !vx.vec<!vx.tensor<128xf32>> -> !vx.tensor<128xf32>
  %k0 = vx.transfer_async %t0 : !vx.tensor<128xf32> -> !vx.token<128xf32, vmem>
  %r = scf.for %i = %c1 to %n step %c1 iter_args(%k = %k0) -> (!vx.token<128xf32, vmem>) {
    %ti = vx.vec_get %v[%i] : !vx.vec<!vx.tensor<128xf32>> -> !vx.tensor<128xf32>
    %next = vx.transfer_async %ti : !vx.tensor<128xf32> -> !vx.token<128xf32, vmem>
    %b = vx.wait %k : !vx.token<128xf32, vmem> -> !vx.pinned<128xf32, vmem>
    scf.yield %next : !vx.token<128xf32, vmem>
  }
  %last = vx.wait %r : !vx.token<128xf32, vmem> -> !vx.pinned<128xf32, vmem>
  return
}
