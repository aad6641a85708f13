// The `--emit=exe` harness: a main() around one entry, the engine of `vxc run`.
// Inputs come from vx_fill (include/vx/data.h) so that every target agrees on
// them; outputs (`&mut` buffers) are printed as vx_checksum lines.
#include "codegen/cpu/Cpu.h"

namespace vx::cpu {

namespace {

const char* kPrelude = R"(
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void vxh_usage(const std::string& m) {
  std::fprintf(stderr, "error: %s\n", m.c_str());
  std::exit(2);
}

// `--arg name=value` values, by name.
std::vector<std::pair<std::string, std::string>> vxh_args;
bool vxh_get(const char* name, std::string& out) {
  for (auto& a : vxh_args)
    if (a.first == name) { out = a.second; return true; }
  return false;
}
uint64_t vxh_u64(const char* name, uint64_t dflt) {
  std::string v;
  if (!vxh_get(name, v)) return dflt;
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);  // decimal, as vxc run checked it: `010` is ten
  if (v.empty() || !std::isdigit((unsigned char)v[0]) || *end || errno) vxh_usage("`--arg " + std::string(name) + "=" + v + "`: expected a non-negative integer");
  return x;
}
int64_t vxh_i64(const char* name) {
  std::string v;
  if (!vxh_get(name, v)) return 0;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || errno) vxh_usage("`--arg " + std::string(name) + "=" + v + "`: expected an integer");
  return x;
}
double vxh_f64(const char* name) {
  std::string v;
  if (!vxh_get(name, v)) return 0;
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) vxh_usage("`--arg " + std::string(name) + "=" + v + "`: expected a number");
  return x;
}
bool vxh_bool(const char* name) {
  std::string v;
  if (!vxh_get(name, v)) return false;
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  vxh_usage("`--arg " + std::string(name) + "=" + v + "`: expected true or false");
}

void vxh_fill(uint64_t seed, uint32_t index, std::vector<float>& v) { vx_fill(seed, index, v.data(), v.size()); }
void vxh_fill(uint64_t seed, uint32_t index, std::vector<double>& v) {
  std::vector<float> f(v.size());
  vx_fill(seed, index, f.data(), f.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = f[i];
}
void vxh_fill(uint64_t seed, uint32_t index, std::vector<uint16_t>& v) {
  std::vector<float> f(v.size());
  vx_fill(seed, index, f.data(), f.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = vx_bf16_from_f32(f[i]);
}
void vxh_fill_f16(uint64_t seed, uint32_t index, std::vector<uint16_t>& v) {
  std::vector<float> f(v.size());
  vx_fill(seed, index, f.data(), f.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = vx_f16_from_f32(f[i]);
}
uint64_t vxh_sum_f16(const std::vector<uint16_t>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = vx_f32_from_f16(v[i]);
  return vx_checksum(f.data(), f.size());
}
// `--output DIR`: each output as DIR/NAME.npy (NumPy format 1.0, little
// endian, C order). bf16 is widened to f32 (NumPy has no bf16).
std::string vxh_out;
void vxh_npy(const char* name, const char* descr, std::vector<uint64_t> shape, const void* data, size_t bytes) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string path = vxh_out + "/" + name + ".npy";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) vxh_usage("cannot write `" + path + "`");
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned char len[2] = {static_cast<unsigned char>(dict.size() & 0xff), static_cast<unsigned char>(dict.size() >> 8)};
  bool ok = std::fwrite(magic, 1, 8, f) == 8 && std::fwrite(len, 1, 2, f) == 2 &&
            std::fwrite(dict.data(), 1, dict.size(), f) == dict.size() && std::fwrite(data, 1, bytes, f) == bytes;
  if (std::fclose(f) != 0 || !ok) vxh_usage("cannot write `" + path + "`");
}
void vxh_save(const char* name, std::vector<uint64_t> shape, const std::vector<float>& v) {
  vxh_npy(name, "<f4", shape, v.data(), v.size() * 4);
}
void vxh_save(const char* name, std::vector<uint64_t> shape, const std::vector<double>& v) {
  vxh_npy(name, "<f8", shape, v.data(), v.size() * 8);
}
void vxh_save(const char* name, std::vector<uint64_t> shape, const std::vector<uint16_t>& v) {  // bf16
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = vx_f32_from_bf16(v[i]);
  vxh_npy(name, "<f4", shape, f.data(), f.size() * 4);
}
void vxh_save_f16(const char* name, std::vector<uint64_t> shape, const std::vector<uint16_t>& v) {
  vxh_npy(name, "<f2", shape, v.data(), v.size() * 2);
}
// `--input NAME=FILE`: FILE holds the buffer's elements, raw, in its own
// element type (vxc run converts the user's .npy into it and checks the
// shape); it is read once and copied in before every repeat.
std::vector<std::pair<std::string, std::string>> vxh_inputs;
template <typename T>
bool vxh_load(const char* name, std::vector<T>& into, size_t count) {
  for (const auto& [k, path] : vxh_inputs) {
    if (k != name) continue;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) vxh_usage("cannot read `" + path + "`");
    into.resize(count);
    size_t got = std::fread(into.data(), sizeof(T), count, f);
    bool more = std::fgetc(f) != EOF;
    std::fclose(f);
    if (got != count || more)
      vxh_usage("`--input " + k + "`: expected " + std::to_string(count) + " elements in `" + path + "`");
    return true;
  }
  return false;
}
uint64_t vxh_sum(const std::vector<float>& v) { return vx_checksum(v.data(), v.size()); }
uint64_t vxh_sum(const std::vector<double>& v) {
  std::vector<float> f(v.begin(), v.end());
  return vx_checksum(f.data(), f.size());
}
uint64_t vxh_sum(const std::vector<uint16_t>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = vx_f32_from_bf16(v[i]);
  return vx_checksum(f.data(), f.size());
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 0, repeat = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) vxh_usage("`" + a + "` needs a value");
      return argv[++i];
    };
    if (a == "--seed") seed = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--repeat") repeat = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--output") vxh_out = value();
    else if (a == "--input") {
      std::string kv = value();
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) vxh_usage("`--input " + kv + "`: expected name=file");
      vxh_inputs.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    else if (a == "--arg") {
      std::string kv = value();
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) vxh_usage("`--arg " + kv + "`: expected name=value");
      vxh_args.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else vxh_usage("unknown option `" + a + "`");
  }
  if (repeat == 0) repeat = 1;
)";

}  // namespace

std::string emitHarness(const Entry& entry, const std::string& unitSource, Flavor flavor) {
  const std::string rt = flavor == Flavor::Cuda ? "vx::cu" : "vx::rt";
  std::string s = "// Generated by vxc: the `vxc run` harness for `" + entry.name + "`.\n";
  s += "#include \"" + unitSource + "\"\n";
  s += kPrelude;
  // Reject names the entry does not have.
  s += "  static const char* known[] = {\"\"";
  for (const Param& p : entry.params)
    if (p.kind == Param::Kind::Scalar || p.kind == Param::Kind::Vec) s += ", \"" + p.name + "\"";
  s += "};\n";
  s += "  static const char* buffers[] = {\"\"";
  for (const Param& p : entry.params)
    if (p.kind != Param::Kind::Scalar) s += ", \"" + p.name + "\"";
  s += "};\n";
  s += "  for (auto& a : vxh_inputs) {\n    bool ok = false;\n    for (const char* k : buffers) ok = ok || a.first == k;\n"
       "    if (!ok) vxh_usage(\"`" + entry.name + "` has no tensor or Vec parameter `\" + a.first + \"`\");\n  }\n";
  s += "  for (auto& a : vxh_args) {\n    bool ok = false;\n    for (const char* k : known) ok = ok || a.first == k;\n"
       "    if (!ok) vxh_usage(\"`" + entry.name + "` has no scalar or Vec parameter `\" + a.first + \"`\");\n  }\n";
  // Buffers: one vx_fill index per tensor parameter, in declaration order.
  uint32_t index = 0;
  std::string call = "vxgen::run_" + entry.name + "(inv";
  std::string fills;
  // Run-time extents first: the tensors' sizes follow from them (128 when
  // no `--arg` gives one; `vxc run` sets them from `--input` shapes).
  for (const Param& p : entry.params)
    if (p.kind == Param::Kind::Scalar && p.extent)
      s += "  " + cScalar(p.type) + " " + cName(p) + " = (" + cScalar(p.type) + ")vxh_u64(\"" + p.name + "\", " + std::to_string(kDefaultExtent) + ");\n";
  for (const Param& p : entry.params) {
    std::string id = cName(p);
    std::string n = countExpr(p);
    switch (p.kind) {
      case Param::Kind::Scalar: {
        if (p.extent) {
          call += ", " + id;
          break;
        }
        std::string init;
        if (p.type == "bool") init = "vxh_bool(\"" + p.name + "\")";
        else if (p.type == "f32" || p.type == "f64" || p.type == "bf16" || p.type == "f16") init = "vxh_f64(\"" + p.name + "\")";
        else if (p.type[0] == 'i') init = "vxh_i64(\"" + p.name + "\")";
        else init = "vxh_u64(\"" + p.name + "\", 0)";
        s += "  " + cScalar(p.type) + " " + id + " = (" + cScalar(p.type) + ")" + init + ";\n";
        call += ", " + id;
        break;
      }
      case Param::Kind::Vec:
        s += "  uint64_t " + id + "_len = vxh_u64(\"" + p.name + "\", " + std::to_string(kDefaultVecLength) + ");\n";
        s += "  std::vector<" + cElem(p.type) + "> " + id + "(" + id + "_len * " + n + "), " + id + "_in;\n";
        s += "  const bool " + id + "_given = vxh_load(\"" + p.name + "\", " + id + "_in, " + id + ".size());\n";
        fills += "    if (" + id + "_given) " + id + " = " + id + "_in;\n    else vxh_fill" +
                 std::string(p.type == "f16" ? "_f16" : "") + "(seed, " + std::to_string(index++) + ", " + id + ");\n";
        call += ", " + id + ".data(), " + id + "_len";
        break;
      case Param::Kind::Tensor:
      case Param::Kind::Pinned:
        s += "  std::vector<" + cElem(p.type) + "> " + id + "(" + n + "), " + id + "_in;\n";
        s += "  const bool " + id + "_given = vxh_load(\"" + p.name + "\", " + id + "_in, " + id + ".size());\n";
        fills += "    if (" + id + "_given) " + id + " = " + id + "_in;\n    else vxh_fill" +
                 std::string(p.type == "f16" ? "_f16" : "") + "(seed, " + std::to_string(index++) + ", " + id + ");\n";
        call += ", " + id + ".data()";
        break;
    }
  }
  call += ")";
  s += "  double best = 1e300;\n  " + rt + "::HostArena arena;  // one for all repeats: its pages stay mapped\n";
  s += entry.result.empty() ? "" : "  " + cScalar(entry.result) + " result{};\n";
  s += "  bool hasAcc = false;\n  uint64_t accSum = 0;\n";
  s += "  for (uint64_t r = 0; r < repeat; ++r) {\n" + fills;
  s += "    " + rt + "::HostInvocation inv(arena);\n";
  s += "    auto t0 = std::chrono::steady_clock::now();\n";
  s += "    " + std::string(entry.result.empty() ? "" : "result = ") + call + ";\n";
  s += "    auto t1 = std::chrono::steady_clock::now();\n";
  s += "    double us = std::chrono::duration<double, std::micro>(t1 - t0).count();\n";
  s += "    if (us < best) best = us;\n";
  s += "    hasAcc = inv.mxu.hasAccumulator();\n    if (hasAcc) accSum = inv.mxu.accumulatorChecksum();\n  }\n";
  bool outputs = false;
  for (const Param& p : entry.params) {
    if (!p.mut || p.kind == Param::Kind::Scalar) continue;
    outputs = true;
    s += "  std::printf(\"checksum " + p.name + " = 0x%016\" PRIx64 \"\\n\", vxh_sum" + std::string(p.type == "f16" ? "_f16" : "") + "(" + cName(p) + "));\n";
    std::string shape = p.kind == Param::Kind::Vec ? cName(p) + "_len" : "";
    for (size_t d = 0; d < p.shape.size(); ++d) {
      std::string dim = std::to_string(p.shape[d]) + "u";
      if (d < p.extents.size() && !p.extents[d].empty()) {
        Param x;
        x.name = p.extents[d];
        dim = "(uint64_t)" + cName(x);
      }
      shape += (shape.empty() ? "" : ", ") + dim;
    }
    s += "  if (!vxh_out.empty()) vxh_save" + std::string(p.type == "f16" ? "_f16" : "") + "(\"" + p.name + "\", {" + shape +
         "}, " + cName(p) + ");\n";
  }
  // An entry without outputs: its result is what the matrix unit holds.
  if (!outputs) s += "  if (hasAcc) std::printf(\"checksum acc = 0x%016\" PRIx64 \"\\n\", accSum);\n";
  if (!entry.result.empty()) {
    // As many digits as tell the type's values apart: 9 for f32 (and the
    // narrower ones), 17 for f64.
    if (entry.result == "f64")
      s += "  std::printf(\"result = %.17g\\n\", (double)result);\n";
    else if (entry.result == "f32" || entry.result == "bf16" || entry.result == "f16")
      s += "  std::printf(\"result = %.9g\\n\", (double)result);\n";
    else if (entry.result == "bool")
      s += "  std::printf(\"result = %s\\n\", result ? \"true\" : \"false\");\n";
    else if (entry.result[0] == 'i')
      s += "  std::printf(\"result = %lld\\n\", (long long)result);\n";
    else
      s += "  std::printf(\"result = %llu\\n\", (unsigned long long)result);\n";
  }
  s += "  std::printf(\"time_us = %.3f\\n\", best);\n  return 0;\n}\n";
  return s;
}

}  // namespace vx::cpu
