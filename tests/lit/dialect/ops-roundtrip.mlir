// Every vx op and type prints in a form that parses back to the same IR.
// RUN: %vx-opt %s | %vx-opt | FileCheck %s

// CHECK-LABEL: func.func @all_ops
func.func @all_ops(%tiles: !vx.vec<!vx.tensor<128x128xf32>>, %out: !vx.tensor<128x128xf32>,
                   %grid: !vx.tensor<4x128x128xf32>, %row: !vx.tensor<128xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: vx.vec_len %{{.*}} : !vx.vec<!vx.tensor<128x128xf32>>
  %n = vx.vec_len %tiles : !vx.vec<!vx.tensor<128x128xf32>>
  // CHECK: vx.vec_get %{{.*}}[%{{.*}}] : !vx.vec<!vx.tensor<128x128xf32>> -> !vx.tensor<128x128xf32>
  %t = vx.vec_get %tiles[%c0] : !vx.vec<!vx.tensor<128x128xf32>> -> !vx.tensor<128x128xf32>
  // CHECK: vx.slot %{{.*}}[%{{.*}}] : !vx.tensor<4x128x128xf32> -> !vx.tensor<128x128xf32>
  %g = vx.slot %grid[%c1] : !vx.tensor<4x128x128xf32> -> !vx.tensor<128x128xf32>
  // CHECK: vx.load_elem %{{.*}}[%{{.*}}] : !vx.tensor<128xf32> -> f32
  %e = vx.load_elem %row[%c1] : !vx.tensor<128xf32> -> f32
  // CHECK: vx.store_elem %{{.*}}, %{{.*}}[%{{.*}}] : f32, !vx.tensor<128xf32>
  vx.store_elem %e, %row[%c0] : f32, !vx.tensor<128xf32>
  // CHECK: vx.transfer %{{.*}} : !vx.tensor<128x128xf32> -> !vx.pinned<128x128xf32, vmem>
  %w = vx.transfer %t : !vx.tensor<128x128xf32> -> !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.zeros : !vx.pinned<2x128x128xf32, vmem>
  %slots = vx.zeros : !vx.pinned<2x128x128xf32, vmem>
  // CHECK: vx.slot %{{.*}}[%{{.*}}] : !vx.pinned<2x128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  %slot = vx.slot %slots[%c1] : !vx.pinned<2x128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.transfer_into %{{.*}}, %{{.*}} : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem>
  vx.transfer_into %g, %slot : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.transfer_async %{{.*}} : !vx.tensor<128x128xf32> -> !vx.token<128x128xf32, vmem>
  %tok = vx.transfer_async %t : !vx.tensor<128x128xf32> -> !vx.token<128x128xf32, vmem>
  // CHECK: vx.wait %{{.*}} : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  %x = vx.wait %tok : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.transfer_async_into %{{.*}}, %{{.*}} : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem> -> !vx.token<vmem>
  %into = vx.transfer_async_into %t, %slot : !vx.tensor<128x128xf32>, !vx.pinned<128x128xf32, vmem> -> !vx.token<vmem>
  // CHECK: vx.wait %{{.*}} : !vx.token<vmem>{{$}}
  vx.wait %into : !vx.token<vmem>
  // CHECK: vx.ready %{{.*}} : !vx.pinned<128x128xf32, vmem> -> !vx.token<128x128xf32, vmem>
  %r = vx.ready %x : !vx.pinned<128x128xf32, vmem> -> !vx.token<128x128xf32, vmem>
  // CHECK: vx.ready -> !vx.token<vmem>
  %rv = vx.ready -> !vx.token<vmem>
  // CHECK: vx.undef : !vx.token<128x128xf32, vmem>
  %u = vx.undef : !vx.token<128x128xf32, vmem>
  %x2 = vx.wait %r : !vx.token<128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>
  vx.wait %rv : !vx.token<vmem>
  // CHECK: vx.load_weights %{{.*}} : !vx.pinned<128x128xf32, vmem>
  vx.load_weights %w : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.matmul_acc %{{.*}} : !vx.pinned<128x128xf32, vmem>
  vx.matmul_acc %x : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.store_acc %{{.*}} : !vx.tensor<128x128xf32>
  vx.store_acc %out : !vx.tensor<128x128xf32>
  %acc = vx.zeros : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.mma %{{.*}}, %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>, !vx.pinned<128x128xf32, vmem>, !vx.pinned<128x128xf32, vmem>
  vx.mma %acc, %x, %w : !vx.pinned<128x128xf32, vmem>, !vx.pinned<128x128xf32, vmem>, !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.add %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>
  %sum = vx.add %acc, %x2 : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.sub %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>
  %diff = vx.sub %sum, %x2 : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.mul %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>
  %prod = vx.mul %diff, %x2 : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.scale %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>
  %scaled = vx.scale %prod, %s : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.scale_into %{{.*}}, %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>
  vx.scale_into %prod, %scaled, %s : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.unary "relu" %{{.*}} : !vx.pinned<128x128xf32, vmem>
  %y = vx.unary "relu" %scaled : !vx.pinned<128x128xf32, vmem>
  // CHECK: vx.store %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32>
  vx.store %y, %out : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32>
  // CHECK: vx.store_async %{{.*}}, %{{.*}} : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32> -> !vx.token<hbm>
  %st = vx.store_async %y, %out : !vx.pinned<128x128xf32, vmem>, !vx.tensor<128x128xf32> -> !vx.token<hbm>
  vx.wait %st : !vx.token<hbm>
  return
}

// Element types and memory spaces survive the round trip.
// CHECK-LABEL: func.func @types
// CHECK-SAME: !vx.pinned<64x32xbf16, smem>
// CHECK-SAME: !vx.token<8xf64, tmem>
// CHECK-SAME: !vx.token<hbm>
func.func @types(%a: !vx.pinned<64x32xbf16, smem>, %b: !vx.token<8xf64, tmem>, %c: !vx.token<hbm>) {
  return
}
