// profileText: what a run's time went to, and what to change (docs/tpu/sim.md,
// "Profile").
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "sim/Sim.h"

namespace vx::sim {

namespace {

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

// A kind of unit's busy cycles, summed over the cores (`matrix`, `core1.matrix`).
uint64_t busy(const Result& r, const std::string& unit) {
  uint64_t sum = 0;
  for (const UnitUsage& u : r.units)
    if (u.name == unit || (u.name.size() > unit.size() && u.name.compare(u.name.size() - unit.size(), unit.size(), unit) == 0 &&
                           u.name[u.name.size() - unit.size() - 1] == '.'))
      sum += u.busyCycles;
  return sum;
}

// A wait right after the copy it waits, from the same Vx line: a blocking
// `transfer` (into on-chip memory) or `store` (out to HBM); None for a
// token's `wait`.
enum class Blocking { None, Transfer, Store };
Blocking blockingCopy(const tpu::Program& p, size_t i) {
  if (i == 0 || p.code[i - 1].op != tpu::Op::DmaStart || !p.code[i].loc.known() ||
      p.code[i - 1].loc.line != p.code[i].loc.line)
    return Blocking::None;
  const tpu::Operand& dst = p.code[i - 1].operands[1];
  bool out = dst.index >= 0 && static_cast<size_t>(dst.index) < p.buffers.size() &&
             p.buffers[dst.index].space == tpu::Space::Hbm;
  return out ? Blocking::Store : Blocking::Transfer;
}

}  // namespace

std::string profileText(const tpu::Program& p, const Result& r) {
  const Profile& prof = r.profile;
  std::string out = "profile:\n";
  char line[640];
  std::string source = p.sourceFile.empty() ? std::string("line") : p.sourceFile.substr(p.sourceFile.find_last_of('/') + 1);
  // Stalls per source line (instructions without a .loc by index).
  uint64_t stalled = 0, blockingStall = 0;
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> byLine;  // (line, 0) or (0, instr+1)
  std::map<std::pair<uint32_t, uint32_t>, Blocking> blockingAt;  // the line's blocking copy, if any
  auto whereOf = [&](std::pair<uint32_t, uint32_t> key) {
    return key.first ? source + ":" + std::to_string(key.first) : "instruction " + std::to_string(key.second - 1);
  };
  for (size_t i = 0; i < prof.stallByInstr.size() && i < p.code.size(); ++i) {
    if (!prof.waitsByInstr[i]) continue;
    stalled += prof.stallByInstr[i];
    std::pair<uint32_t, uint32_t> key = p.code[i].loc.known() ? std::make_pair(p.code[i].loc.line, 0u)
                                                              : std::make_pair(0u, static_cast<uint32_t>(i + 1));
    byLine[key].first += prof.stallByInstr[i];
    byLine[key].second += prof.waitsByInstr[i];
    if (Blocking kind = blockingCopy(p, i); kind != Blocking::None) {
      blockingAt[key] = kind;
      // Stores only: a blocking transfer in a loop is what a ring replaces
      // (the latency hint says so); a blocking store out is not.
      if (kind == Blocking::Store) blockingStall += prof.stallByInstr[i];
    }
  }
  // With several cores, time is core-cycles: each core's share of the run.
  const uint64_t cores = std::max(r.cores, 1u), span = r.cycles * cores;
  if (cores == 1) {
    std::snprintf(line, sizeof line, "  waiting for copies: %" PRIu64 " of %" PRIu64 " cycles (%.1f%%)\n", stalled,
                  r.cycles, pct(stalled, r.cycles));
  } else {
    std::snprintf(line, sizeof line,
                  "  waiting for copies: %" PRIu64 " of %" PRIu64 " core-cycles (%.1f%%; %" PRIu64 " cores, summed)\n",
                  stalled, span, pct(stalled, span), cores);
  }
  out += line;
  if (prof.unitStallCycles) {
    std::snprintf(line, sizeof line,
                  "  waiting for the vector and matrix units: %" PRIu64 " of %" PRIu64 " %s (%.1f%%)\n",
                  prof.unitStallCycles, span, cores == 1 ? "cycles" : "core-cycles", pct(prof.unitStallCycles, span));
    out += line;
  }
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>>> rows(byLine.begin(), byLine.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  size_t shown = 0;
  for (const auto& [key, v] : rows) {
    if (v.first == 0 || shown == 5) continue;
    ++shown;
    std::string where = whereOf(key);
    auto blocking = blockingAt.find(key);
    std::string what = blocking == blockingAt.end()               ? ""
                       : blocking->second == Blocking::Store ? " (a blocking `store`)"
                                                             : " (a blocking `transfer`)";
    std::snprintf(line, sizeof line, "    %-24s %8" PRIu64 " cycles stalled in %" PRIu64 " wait%s%s\n", where.c_str(),
                  v.first, v.second, v.second == 1 ? "" : "s", what.c_str());
    out += line;
  }
  // The blocking store that stalls most: what the hint names.
  std::pair<uint32_t, uint32_t> worstKey{0, 0};
  uint64_t worst = 0;
  for (const auto& [key, kind] : blockingAt)
    if (kind == Blocking::Store && byLine[key].first > worst) {
      worst = byLine[key].first;
      worstKey = key;
    }
  if (cores > 1) {
    std::string each;
    for (size_t c = 0; c < r.coreCycles.size(); ++c)
      each += (c ? ", " : "") + std::string("core") + std::to_string(c) + " " + std::to_string(r.coreCycles[c]);
    out += "  cores: each halted at cycle: " + each + "\n";
  }
  double n = static_cast<double>(std::max<uint64_t>(prof.dmas, 1));
  double queue = static_cast<double>(prof.queueCycles) / n, moving = static_cast<double>(prof.transferCycles) / n,
         latency = static_cast<double>(prof.latencyCycles) / n;
  if (prof.dmas) {
    std::snprintf(line, sizeof line,
                  "  copies: %" PRIu64 ", %.0f bytes each on average; per copy %.0f cycles queued (engine or link busy), "
                  "%.0f moving data, %.0f latency\n",
                  prof.dmas, static_cast<double>(prof.dmaBytes) / n, queue, moving, latency);
    out += line;
  }
  double mxu = pct(busy(r, "matrix"), span), vpu = pct(busy(r, "vector"), span);
  double hbm = pct(prof.hbmBusy, r.cycles);
  if (cores == 1) {
    std::snprintf(line, sizeof line, "  utilisation: HBM link %.1f%%, matrix unit %.1f%%, vector unit %.1f%%\n", hbm, mxu,
                  vpu);
  } else {
    // The chip's HBM: the bytes moved against what it could have moved.
    hbm = r.cycles && prof.chipBytesPerCycle > 0
              ? 100.0 * static_cast<double>(prof.hbmBytes) / (prof.chipBytesPerCycle * static_cast<double>(r.cycles))
              : 0.0;
    std::snprintf(line, sizeof line,
                  "  utilisation: the chip's HBM %.1f%%, matrix units %.1f%%, vector units %.1f%% (averaged over %" PRIu64
                  " cores)\n",
                  hbm, mxu, vpu, cores);
  }
  out += line;
  // The hint: only where the figures say which bound it is.
  double stallPct = pct(stalled, span);
  std::string hint;
  if (!prof.dmas || r.cycles == 0) {
    hint = "";
  } else if (stallPct < 5.0) {
    std::snprintf(line, sizeof line,
                  "compute-bound: the copies are hidden (the core waits %.1f%% of the time); the matrix unit is busy "
                  "%.1f%%, so the time is in compute",
                  stallPct, mxu);
    hint = line;
  } else if (2 * blockingStall >= stalled && worst > 0) {
    // Most of the wait is at blocking stores: a deeper ring would not help.
    std::string where = whereOf(worstKey);
    std::snprintf(line, sizeof line,
                  "blocked on stores: %" PRIu64 " of the %" PRIu64 " stalled cycles (%.1f%%) are at blocking "
                  "`store`s, %" PRIu64 " at the one at %s; start it with `store_async` and wait its token later, so "
                  "that the next work overlaps it (a deeper ring of reads would not help)",
                  blockingStall, stalled, pct(blockingStall, stalled), worst, where.c_str());
    hint = line;
  } else if (hbm >= 70.0) {
    std::snprintf(line, sizeof line,
                  "bandwidth-bound: %s is busy %.1f%% of the time, so more copies in flight will not help; "
                  "move fewer bytes per result (keep reused tiles in VMEM, use bf16)",
                  cores > 1 ? "the chip's HBM" : "the HBM link", hbm);
    hint = line;
  } else if (mxu + vpu >= 2 * stallPct) {
    std::snprintf(line, sizeof line,
                  "compute-bound: the matrix and vector units are busy %.1f%% of the time, the core waits for copies "
                  "%.1f%% (the lines above say where)",
                  mxu + vpu, stallPct);
    hint = line;
  } else if (latency >= moving) {
    std::snprintf(line, sizeof line,
                  "latency-bound: the core waits %" PRIu64 " cycles (%.1f%%) for copies that spend %.0f of their %.0f "
                  "cycles in latency; one more copy in flight (a deeper ring) hides the latency behind the copies "
                  "already moving",
                  stalled, stallPct, latency, queue + moving + latency);
    hint = line;
  } else {
    std::snprintf(line, sizeof line,
                  "copy-bound: the core waits %" PRIu64 " cycles (%.1f%%) while copies move data; start each copy earlier "
                  "(prefetch) so that compute overlaps it",
                  stalled, stallPct);
    hint = line;
  }
  if (!hint.empty()) out += "  hint: " + hint + "\n";
  return out;
}

}  // namespace vx::sim
