// The interpreter loop. Scalar instructions are handled inline on locals
// (no allocation, no strings, no time bookkeeping beyond the issue count);
// everything that touches memory or time leaves the loop for Units.cpp.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "sim/Machine.h"

namespace vx::sim {

using tpu::Op;

namespace {
inline int64_t wrapAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrapSub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrapMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
}  // namespace

void Machine::interpret(bool yieldAtDma) {
  Core& c = *c_;
  const Dec* const code = code_.data();
  int64_t* const V = c.vals.data();
  const uint64_t limit = cfg_.maxInstructions;
  // max_instructions counts every core's instructions.
  const uint64_t mine = limit > othersExecuted_ ? limit - othersExecuted_ : 0;
  uint64_t n = c.executed;
  uint32_t pc = c.pc;
  // Leaves the loop's locals in the core before anything that may fault,
  // read the time or return.
  auto sync = [&] {
    c.executed = n;
    c.pc = pc;
  };
  for (;;) {
    if (n >= mine) {
      sync();
      fault(FaultKind::InstructionLimit, pc,
            "executed max_instructions = " + std::to_string(limit) +
                " instructions without reaching halt (raise it with --max-instructions or the config key)");
    }
    ++n;
    const Dec& d = code[pc];
    switch (d.op) {
      case Op::Nop: ++pc; break;
      case Op::Li:
      case Op::Mov:
      case Op::LdParam: V[d.v[0]] = V[d.v[1]]; ++pc; break;
      case Op::LdSmem:
      case Op::StSmem: {
        sync();
        const Memory& mm = mem(d.m[0].buf);
        int64_t off = resolve(pc, d.op == Op::LdSmem ? 1 : 0, d.m[0], 8, true);
        awaitUnits(pc, contiguous(d.m[0].buf, off, off + 8), d.op == Op::StSmem);
        if (d.op == Op::LdSmem) {
          checkRead(pc, contiguous(d.m[0].buf, off, off + 8));
          std::memcpy(&V[d.v[0]], mm.data.get() + off, 8);
        } else {
          checkWrite(pc, contiguous(d.m[0].buf, off, off + 8));
          std::memcpy(mm.data.get() + off, &V[d.v[1]], 8);
        }
        ++pc;
        break;
      }
      case Op::Add: V[d.v[0]] = wrapAdd(V[d.v[1]], V[d.v[2]]); ++pc; break;
      case Op::Sub: V[d.v[0]] = wrapSub(V[d.v[1]], V[d.v[2]]); ++pc; break;
      case Op::Mul: V[d.v[0]] = wrapMul(V[d.v[1]], V[d.v[2]]); ++pc; break;
      case Op::Div:
      case Op::Rem: {
        const int64_t a = V[d.v[1]], b = V[d.v[2]];
        if (b == 0) {
          sync();
          fault(FaultKind::Arithmetic, pc, std::string(d.op == Op::Div ? "division" : "remainder") + " by zero");
        }
        if (a == INT64_MIN && b == -1) {
          sync();
          fault(FaultKind::Arithmetic, pc, d.op == Op::Div ? "i64::MIN / -1 overflows" : "i64::MIN % -1 overflows");
        }
        V[d.v[0]] = d.op == Op::Div ? a / b : a % b;
        ++pc;
        break;
      }
      case Op::Min: V[d.v[0]] = std::min(V[d.v[1]], V[d.v[2]]); ++pc; break;
      case Op::Max: V[d.v[0]] = std::max(V[d.v[1]], V[d.v[2]]); ++pc; break;
      case Op::And: V[d.v[0]] = V[d.v[1]] & V[d.v[2]]; ++pc; break;
      case Op::Or: V[d.v[0]] = V[d.v[1]] | V[d.v[2]]; ++pc; break;
      case Op::Xor: V[d.v[0]] = V[d.v[1]] ^ V[d.v[2]]; ++pc; break;
      case Op::Shl:
      case Op::Shr: {
        const int64_t b = V[d.v[2]];
        if (b < 0 || b > 63) {
          sync();
          fault(FaultKind::Arithmetic, pc, "shift by " + std::to_string(b) + " (must be 0..63)");
        }
        const int64_t a = V[d.v[1]];
        V[d.v[0]] = d.op == Op::Shl ? static_cast<int64_t>(static_cast<uint64_t>(a) << b) : a >> b;
        ++pc;
        break;
      }
      case Op::Seq: V[d.v[0]] = V[d.v[1]] == V[d.v[2]]; ++pc; break;
      case Op::Sne: V[d.v[0]] = V[d.v[1]] != V[d.v[2]]; ++pc; break;
      case Op::Slt: V[d.v[0]] = V[d.v[1]] < V[d.v[2]]; ++pc; break;
      case Op::Sle: V[d.v[0]] = V[d.v[1]] <= V[d.v[2]]; ++pc; break;
      case Op::Sgt: V[d.v[0]] = V[d.v[1]] > V[d.v[2]]; ++pc; break;
      case Op::Sge: V[d.v[0]] = V[d.v[1]] >= V[d.v[2]]; ++pc; break;
      case Op::CoreId: V[d.v[0]] = c.id; ++pc; break;
      case Op::CoreCount: V[d.v[0]] = static_cast<int64_t>(cores_.size()); ++pc; break;
      case Op::GridInstance: c.tag = V[d.v[0]] >= 0 ? V[d.v[0]] : -1 - static_cast<int64_t>(c.id); ++pc; break;
      case Op::Jmp: pc = d.target; break;
      case Op::Bnz: pc = V[d.v[0]] != 0 ? d.target : pc + 1; break;
      case Op::Bz: pc = V[d.v[0]] == 0 ? d.target : pc + 1; break;
      case Op::Beq: pc = V[d.v[0]] == V[d.v[1]] ? d.target : pc + 1; break;
      case Op::Bne: pc = V[d.v[0]] != V[d.v[1]] ? d.target : pc + 1; break;
      case Op::Blt: pc = V[d.v[0]] < V[d.v[1]] ? d.target : pc + 1; break;
      case Op::Bge: pc = V[d.v[0]] >= V[d.v[1]] ? d.target : pc + 1; break;
      case Op::Halt:
        sync();
        halt(pc);
        c.halted = true;
        return;
      case Op::DmaStart:
      case Op::DmaStrided:
        sync();
        if (!c.atDma) {
          // Wait for the units first: the start is ordered among the cores
          // by the time it issues.
          dmaAwaitUnits(pc, d);
          if (yieldAtDma) {
            --n;  // not issued yet: it issues when this core runs next
            c.atDma = true;
            sync();
            return;
          }
        }
        c.atDma = false;
        dma(pc, d);
        ++pc;
        break;
      case Op::DmaWait: sync(); dmaWait(pc, d); ++pc; break;
      case Op::MxuLatch:
      case Op::MxuMatmul:
      case Op::MxuPop:
      case Op::MxuReset: sync(); matrix(pc, d); ++pc; break;
      case Op::VecAdd:
      case Op::VecSub:
      case Op::VecMul:
      case Op::VecMax:
      case Op::VecMin:
      case Op::VecTranspose:
      case Op::VecRelu:
      case Op::VecScale:
      case Op::VecCopy:
      case Op::VecZero:
      case Op::VecFill:
      case Op::VecAbs:
      case Op::VecNeg:
      case Op::VecExp:
      case Op::VecLog:
      case Op::VecSqrt:
      case Op::VecRsqrt:
      case Op::VecTanh:
      case Op::VecRowMax:
      case Op::VecRowSum:
      case Op::VecAddCol:
      case Op::VecSubCol:
      case Op::VecMulCol:
      case Op::VecRsubCol:
      case Op::VecAddRow:
      case Op::VecSubRow:
      case Op::VecMulRow:
      case Op::VecRsubRow:
      case Op::VecDiv:
      case Op::VecDivCol:
      case Op::VecRdivCol:
      case Op::VecDivRow:
      case Op::VecRdivRow:
      case Op::VecMaxCol:
      case Op::VecRmaxCol:
      case Op::VecMinCol:
      case Op::VecRminCol:
      case Op::VecMaxRow:
      case Op::VecRmaxRow:
      case Op::VecMinRow:
      case Op::VecRminRow: sync(); vector(pc, d); ++pc; break;
      case Op::DbgInt:
      case Op::DbgUint:
      case Op::DbgBool:
      case Op::DbgFloat:
      case Op::DbgTile: sync(); debug(pc, d); ++pc; break;
      case Op::Count_: sync(); fault(FaultKind::OutOfBounds, pc, "invalid opcode");
    }
  }
}

}  // namespace vx::sim
