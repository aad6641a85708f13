// stream_out as .vxdma text, for tests and benchmarks: n tiles of
// [rows, 128] f32 streamed through latched 128x128 weights into `out`.
#pragma once

#include <string>

namespace vxtest {

// stream_out over n tiles of [rows, 128] f32 through latched 128x128 weights.
// depth >= 2: a ring of `depth` VMEM slots, depth-1 copies in flight ahead of
// the matrix unit, slot s signalling sem(1+s). depth == 1: blocking.
inline std::string streamProgram(int rows, int depth) {
  const long tile = static_cast<long>(rows) * 128 * 4;
  const std::string T = std::to_string(tile), R = std::to_string(rows), D = std::to_string(depth);
  std::string s = ".vxdma 1\n.kernel stream_out\n.source \"stream_out.vx\"\n.param n = 8\n";
  s += ".hbm tiles f32 [n, " + R + ", 128] input\n.hbm w f32 [128, 128] input\n.hbm out f32 [" + R +
       ", 128] output\n";
  s += ".vmem wv f32 [128, 128]\n.vmem buf f32 [" + D + ", " + R + ", 128]\n.vmem res f32 [" + R + ", 128]\n";
  s += ".loc 2:12\n  dma.start w, wv, 65536, sem0\n  dma.wait sem0\n  mxu.latch wv, [128, 128]\n";
  s += "  ld.param r1, n\n";
  if (depth == 1) {
    s += "  li r2, 0\nloop:\n.loc 4:46\n  mul r4, r2, " + T + "\n  dma.start tiles[r4], buf, " + T +
         ", sem1\n  dma.wait sem1\n.loc 4:84\n  mxu.matmul buf, [" + R + ", 128]\n  add r2, r2, 1\n"
         "  blt r2, r1, loop\n";
  } else {
    // Prologue: start tiles 0 .. min(n, depth-1)-1.
    s += "  li r2, 0\n  min r10, r1, " + std::to_string(depth - 1) + "\npro:\n  bge r2, r10, body\n"
         "  mul r4, r2, " + T + "\n  add r7, r2, 1\n  dma.start tiles[r4], buf[r4], " + T + ", sem[r7]\n"
         "  add r2, r2, 1\n  jmp pro\n";
    // Body, for i in 0..n: start tile i+depth-1 (if any), wait tile i, matmul.
    s += "body:\n  li r2, 0\nloop:\n.loc 4:46\n  add r3, r2, " + std::to_string(depth - 1) +
         "\n  bge r3, r1, nostart\n  rem r5, r3, " + D + "\n  mul r6, r5, " + T + "\n  mul r4, r3, " + T +
         "\n  add r7, r5, 1\n  dma.start tiles[r4], buf[r6], " + T + ", sem[r7]\n";
    s += "nostart:\n.loc 4:84\n  rem r5, r2, " + D + "\n  add r7, r5, 1\n  dma.wait sem[r7]\n  mul r6, r5, " + T +
         "\n  mxu.matmul buf[r6], [" + R + ", 128]\n  add r2, r2, 1\n  blt r2, r1, loop\n";
  }
  s += ".loc 5:35\n  mxu.pop res, [" + R + ", 128]\n  dma.start res, out, " + T + ", sem0\n  dma.wait sem0\n  halt\n";
  return s;
}

}  // namespace vxtest
