// run(): validate, bind parameters, allocate and fill memory, decode, run the
// cores, checksum. Also the text report vxsim prints.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "sim/Machine.h"
#include "tpu/Asm.h"
#include "vx/data.h"

namespace vx::sim {

using tpu::Op;
using tpu::OperandKind;

namespace {

// a * b, or false on overflow past int64.
bool mulChecked(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

std::string bytesText(uint64_t b) {
  return std::to_string(b) + " bytes";
}

}  // namespace

bool Machine::load() {
  res_.errors = checkConfig(cfg_);
  if (!res_.errors.empty()) return false;
  for (const tpu::AsmError& e : tpu::validate(prog_)) res_.errors.push_back(tpu::formatError(opt_.programName, e));
  if (!res_.errors.empty()) return false;

  // Parameters: --arg values, else defaults.
  paramValues_.assign(prog_.params.size(), 0);
  std::vector<bool> bound(prog_.params.size(), false);
  for (const auto& [name, value] : opt_.args) {
    int32_t i = prog_.findParam(name);
    if (i < 0) {
      std::string known;
      for (const tpu::Param& p : prog_.params) known += (known.empty() ? "" : ", ") + p.name;
      res_.errors.push_back("error: the program has no parameter `" + name + "`" +
                            (known.empty() ? " (it has none)" : " (it has: " + known + ")"));
      continue;
    }
    paramValues_[static_cast<size_t>(i)] = value;
    bound[static_cast<size_t>(i)] = true;
  }
  for (size_t i = 0; i < prog_.params.size(); ++i) {
    if (bound[i]) continue;
    if (prog_.params[i].defaultValue) paramValues_[i] = *prog_.params[i].defaultValue;
    else res_.errors.push_back("error: parameter `" + prog_.params[i].name + "` has no value: pass --arg " +
                               prog_.params[i].name + "=VALUE");
  }
  if (!res_.errors.empty()) return false;

  // Buffers: sizes, capacities, host memory. HBM is the chip's; every core
  // that runs the program has VMEM and SMEM of its own.
  const unsigned cores = prog_.spmd ? static_cast<unsigned>(cfg_.cores) : 1;
  uint64_t used[3] = {0, 0, 0};
  const uint64_t cap[3] = {cfg_.hbmBytes, cfg_.vmemBytes, cfg_.smemBytes};
  hbm_.resize(prog_.buffers.size());
  cores_.resize(cores);
  for (Core& c : cores_) {
    c.local.resize(prog_.buffers.size());
    c.mem.resize(prog_.buffers.size());
  }
  for (size_t i = 0; i < prog_.buffers.size(); ++i) {
    const tpu::Buffer& b = prog_.buffers[i];
    int64_t bytes = tpu::dtypeBytes(b.dtype);
    for (const tpu::Dim& d : b.shape) {
      int64_t v = d.param >= 0 ? paramValues_[static_cast<size_t>(d.param)] : d.value;
      if (v < 1) {
        res_.errors.push_back("error: buffer `" + b.name + "` has a dimension " + std::to_string(v) +
                              " (from parameter `" + prog_.params[static_cast<size_t>(d.param)].name +
                              "`); dimensions must be at least 1");
        return false;
      }
      if (!mulChecked(bytes, v, bytes)) {
        res_.errors.push_back("error: buffer `" + b.name + "` is larger than 2^63 bytes");
        return false;
      }
    }
    const auto s = static_cast<size_t>(b.space);
    used[s] += static_cast<uint64_t>(bytes);
    if (used[s] > cap[s]) {
      res_.errors.push_back(std::string("error: the program's ") + tpu::spaceName(b.space) + " buffers need " +
                            bytesText(used[s]) + " up to `" + b.name + "`, more than the " + bytesText(cap[s]) +
                            " the machine has (" + tpu::spaceName(b.space) + "_bytes)");
      return false;
    }
    for (Core& c : cores_) {
      const bool shared = b.space == tpu::Space::Hbm;
      Memory& m = shared ? hbm_[i] : c.local[i];
      c.mem[i] = &m;
      if (m.data) continue;  // the HBM buffer, already made for core 0
      m.size = bytes;
      m.space = b.space;
      m.dtype = b.dtype;
      m.data.reset(static_cast<uint8_t*>(std::calloc(static_cast<size_t>(bytes), 1)));
      if (!m.data) {
        res_.errors.push_back("error: cannot allocate " + bytesText(static_cast<uint64_t>(bytes)) +
                              " of host memory for buffer `" + b.name + "`");
        return false;
      }
    }
  }

  // Inputs: vx_fill, indexed by the buffer's ordinal among non-scratch HBM
  // buffers (the entry function's tensor parameters), unless given.
  for (const auto& input : opt_.inputs) {
    bool known = false;
    for (const tpu::Buffer& b : prog_.buffers)
      known = known || (b.name == input.first && b.space == tpu::Space::Hbm &&
                        (b.role == tpu::Role::Input || b.role == tpu::Role::InOut));
    if (!known) {
      res_.errors.push_back("error: the program has no input buffer `" + input.first + "`");
      return false;
    }
  }
  uint32_t ordinal = 0;
  std::vector<float> tmp;
  for (size_t i = 0; i < prog_.buffers.size(); ++i) {
    const tpu::Buffer& b = prog_.buffers[i];
    if (b.space != tpu::Space::Hbm || b.role == tpu::Role::Scratch) continue;
    const uint32_t index = ordinal++;
    if (b.role != tpu::Role::Input && b.role != tpu::Role::InOut) continue;
    Memory& m = hbm_[i];
    const size_t n = static_cast<size_t>(m.size) / tpu::dtypeBytes(b.dtype);
    const std::vector<float>* given = nullptr;
    for (const auto& [name, values] : opt_.inputs)
      if (name == b.name) given = &values;
    if (given && given->size() != n) {
      res_.errors.push_back("error: input `" + b.name + "` has " + std::to_string(given->size()) +
                            " elements; the buffer holds " + std::to_string(n));
      return false;
    }
    if (given && b.dtype == tpu::DType::F32) {
      std::memcpy(m.data.get(), given->data(), n * 4);
    } else if (given) {
      for (size_t k = 0; k < n; ++k) {
        uint16_t h = vx_bf16_from_f32((*given)[k]);
        std::memcpy(m.data.get() + 2 * k, &h, 2);
      }
    } else if (b.dtype == tpu::DType::F32) {
      vx_fill(opt_.seed, index, reinterpret_cast<float*>(m.data.get()), n);
    } else {
      tmp.resize(n);
      vx_fill(opt_.seed, index, tmp.data(), n);
      for (size_t k = 0; k < n; ++k) {
        uint16_t h = vx_bf16_from_f32(tmp[k]);
        std::memcpy(m.data.get() + 2 * k, &h, 2);
      }
    }
  }

  if (cfg_.accRows * cfg_.mxuDim > (uint64_t{1} << 28)) {
    res_.errors.push_back("error: acc_rows x mxu_dim is too large to simulate (at most 2^28 elements)");
    return false;
  }
  for (Core& c : cores_) {
    c.id = static_cast<unsigned>(&c - cores_.data());
    c.track0 = static_cast<uint16_t>(c.id * (3 + cfg_.dmaEngines));
    c.tag = -1 - static_cast<int64_t>(c.id);
    c.acc.assign(cfg_.accRows * cfg_.mxuDim, 0.0f);
    c.wK = c.wN = static_cast<int64_t>(cfg_.mxuDim);
    c.engineFree.assign(cfg_.dmaEngines, 0);
    c.engineBusy.assign(cfg_.dmaEngines, 0);
  }
  // Accesses of different instances or cores can race only when there are
  // several of either.
  trackInstances_ = cores > 1;
  for (const tpu::Instr& in : prog_.code) trackInstances_ = trackInstances_ || in.op == Op::GridInstance;
  if (trackInstances_) {
    written_.resize(prog_.buffers.size());
    read_.resize(prog_.buffers.size());
  }
  chipShared_ = cores > 1 || cfg_.hbmChipGbps < cfg_.hbmGbps;
  if (!decode()) return false;
  for (Core& c : cores_) c.vals = vals0_;
  return true;
}

bool Machine::decode() {
  vals0_.assign(tpu::kNumRegs + 1, 0);  // registers, then the constant 0
  auto constant = [&](int64_t v) {
    vals0_.push_back(v);
    return static_cast<uint32_t>(vals0_.size() - 1);
  };
  code_.resize(prog_.code.size());
  res_.profile.stallByInstr.assign(prog_.code.size(), 0);
  res_.profile.waitsByInstr.assign(prog_.code.size(), 0);
  for (size_t pc = 0; pc < prog_.code.size(); ++pc) {
    const tpu::Instr& in = prog_.code[pc];
    Dec& d = code_[pc];
    d.op = in.op;
    unsigned mi = 0;
    for (unsigned i = 0; i < in.numOperands; ++i) {
      const tpu::Operand& o = in.operands[i];
      switch (o.kind) {
        case OperandKind::Reg: d.v[i] = o.reg; break;
        case OperandKind::RegOrImm: d.v[i] = o.reg != tpu::kNoReg ? o.reg : constant(o.imm); break;
        case OperandKind::Imm: d.v[i] = constant(o.imm); break;
        case OperandKind::Param: d.v[i] = constant(paramValues_[static_cast<size_t>(o.index)]); break;
        case OperandKind::Mem:
        case OperandKind::Tile:
        case OperandKind::Word:
          if (mi < 3)
            d.m[mi++] = {static_cast<uint32_t>(o.index), o.reg != tpu::kNoReg ? o.reg : tpu::kNumRegs, o.imm};
          break;
        case OperandKind::Sem: d.sem = o.reg != tpu::kNoReg ? o.reg : constant(o.index); break;
        case OperandKind::Label: d.target = prog_.labels[static_cast<size_t>(o.index)].target; break;
        case OperandKind::Dims:
          d.rows = o.imm;
          d.cols = o.cols;
          break;
        case OperandKind::Float: d.f = o.fval; break;
      }
    }
  }
  return true;
}

void Machine::execute() {
  const Core* last = &cores_[0];
  try {
    if (!multicore()) {
      c_ = &cores_[0];
      interpret(false);
    } else {
      // The core furthest behind in time runs next, up to its next DMA
      // start: DMAs start in the order of their issue times across cores.
      uint64_t total = 0;
      for (;;) {
        Core* next = nullptr;
        for (Core& c : cores_)
          if (!c.halted && (!next || timeOf(c) < timeOf(*next))) next = &c;
        if (!next) break;
        c_ = next;
        othersExecuted_ = total - next->executed;
        interpret(true);
        total = othersExecuted_ + next->executed;
      }
    }
    finish();
  } catch (const FaultSignal& f) {
    res_.status = Status::Fault;
    res_.fault = f.fault;
    last = c_;
  }
  res_.cores = static_cast<unsigned>(cores_.size());
  res_.instructions = 0;
  res_.cycles = 0;
  res_.units.clear();
  res_.coreCycles.clear();
  for (const Core& c : cores_) {
    res_.instructions += c.executed;
    res_.cycles = std::max(res_.cycles, timeOf(c));
    res_.coreCycles.push_back(timeOf(c));
    const std::string pre = multicore() ? "core" + std::to_string(c.id) + "." : "";
    res_.units.push_back({pre + "scalar", c.executed * cfg_.scalarCycles, c.id});
    res_.units.push_back({pre + "vector", c.vectorBusy, c.id});
    res_.units.push_back({pre + "matrix", c.matrixBusy, c.id});
    for (size_t e = 0; e < c.engineBusy.size(); ++e)
      res_.units.push_back({pre + "dma" + std::to_string(e), c.engineBusy[e], c.id});
  }
  res_.registers.assign(last->vals.begin(), last->vals.begin() + tpu::kNumRegs);
  res_.profile.chipBytesPerCycle = cfg_.hbmChipGbps / cfg_.clockGhz;
}

void Machine::finish() {
  std::vector<float> tmp;
  for (size_t i = 0; i < prog_.buffers.size(); ++i) {
    const tpu::Buffer& b = prog_.buffers[i];
    if (b.role != tpu::Role::Output && b.role != tpu::Role::InOut) continue;
    const Memory& m = hbm_[i];
    const size_t n = static_cast<size_t>(m.size) / tpu::dtypeBytes(b.dtype);
    tmp.resize(n);
    if (b.dtype == tpu::DType::F32) {
      std::memcpy(tmp.data(), m.data.get(), n * 4);
    } else {
      for (size_t k = 0; k < n; ++k) {
        uint16_t h;
        std::memcpy(&h, m.data.get() + 2 * k, 2);
        tmp[k] = vx_f32_from_bf16(h);
      }
    }
    Output out{b.name, vx_checksum(tmp.data(), n), {}};
    if (opt_.keepOutputs) out.values = tmp;
    res_.outputs.push_back(std::move(out));
  }
}

Result run(const tpu::Program& program, const Options& options) {
  Result r;
  r.clockGhz = options.config.clockGhz;
  try {
    Machine m(program, options, r);
    if (!m.load()) {
      r.status = Status::LoadError;
      return r;
    }
    m.execute();
  } catch (const std::exception& e) {
    // Host allocation failure (a huge tile scratch, the trace); the API
    // promises a result, not an exception.
    r.status = Status::LoadError;
    r.errors.push_back(std::string("error: the simulator ran out of host resources: ") + e.what());
  }
  return r;
}

std::string report(const Result& r) {
  std::string out;
  char line[256];
  if (r.status == Status::LoadError) {
    for (const std::string& e : r.errors) out += e + "\n";
    return out;
  }
  if (r.status == Status::Fault) return "error: " + r.fault->message + "\n";
  for (const Output& o : r.outputs) {
    std::snprintf(line, sizeof line, "checksum %s = 0x%016" PRIx64 "\n", o.name.c_str(), o.checksum);
    out += line;
  }
  std::snprintf(line, sizeof line, "cycles = %" PRIu64 "\ninstructions = %" PRIu64 "\ntime_us = %.3f\n", r.cycles,
                r.instructions, static_cast<double>(r.cycles) / (r.clockGhz * 1000.0));
  out += line;
  for (const UnitUsage& u : r.units) {
    double f = r.cycles ? 100.0 * static_cast<double>(u.busyCycles) / static_cast<double>(r.cycles) : 0.0;
    std::snprintf(line, sizeof line, "busy %s = %.1f%% (%" PRIu64 " cycles)\n", u.name.c_str(), f, u.busyCycles);
    out += line;
  }
  return out;
}

}  // namespace vx::sim
