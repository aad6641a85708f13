// `vxc run --target tpu`: --arg values for the kernel's `.param`s. What a
// run prints is the driver's (src/driver/TpuReport.cpp).
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "base/Text.h"
#include "codegen/tpu/Tpu.h"

namespace vx::codegen::tpu {

namespace {

// Decimal, a sign only for a negative number: strtoll alone skips blanks
// and takes `+` (`" 3"`, `"+3"`: what the cpu harness refuses).
bool parseInt(const std::string& s, int64_t lo, int64_t hi, int64_t& out) {
  size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() <= sign || s[sign] < '0' || s[sign] > '9') return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end || errno || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

std::string kernelArgs(const Kernel& k, const std::vector<std::string>& kvs,
                       std::vector<std::pair<std::string, int64_t>>& out) {
  for (const std::string& kv : kvs) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return "`--arg " + kv + "`: expected NAME=VALUE";
    std::string name = kv.substr(0, eq), value = kv.substr(eq + 1);
    const KernelParam* p = nullptr;
    std::vector<std::string> names;
    for (const KernelParam& q : k.params) {
      names.push_back(q.name);
      if (q.name == name) p = &q;
    }
    if (!p) {
      std::string close = base::closestMatch(name, names);
      return "`" + k.program.kernel + "` has no parameter `" + name + "`" +
             (close.empty() ? "" : "; did you mean `" + close + "`?");
    }
    int64_t v = 0;
    switch (p->kind) {
      case KernelParam::Kind::Tensor:
      case KernelParam::Kind::Pinned: return "`" + name + "` is a tensor; its contents come from `--seed`";
      case KernelParam::Kind::Vec:
        if (!parseInt(value, 0, INT64_MAX, v)) return "`--arg " + kv + "`: a Vec's length must be a non-negative integer";
        if (v == 0) return "`--arg " + kv + "`: on target tpu a Vec has at least one element (its HBM buffer cannot be empty)";
        out.push_back({p->param, v});
        continue;
      case KernelParam::Kind::Scalar: break;
    }
    const std::string& t = p->type;
    bool ok = true;
    if (t == "bool") {
      ok = value == "true" || value == "false" || value == "1" || value == "0";
      v = value == "true" || value == "1";
    } else if (t == "i32") {
      ok = parseInt(value, INT32_MIN, INT32_MAX, v);
    } else if (t == "u32") {
      ok = parseInt(value, 0, UINT32_MAX, v);
      v = static_cast<int32_t>(static_cast<uint32_t>(v));  // registers hold i32 values sign-extended
    } else if (t == "i64") {
      ok = parseInt(value, INT64_MIN, INT64_MAX, v);
    } else if (t == "u64" || t == "usize") {
      ok = parseInt(value, 0, INT64_MAX, v);
      if (!ok && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos)
        return "`--arg " + kv + "`: on target tpu a `" + t + "` must be below 2^63 (the scalar unit is signed)";
    } else {
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      ok = !value.empty() && !*end;
    }
    if (!ok) return "`--arg " + kv + "`: `" + value + "` is not a valid `" + t + "`";
    if (p->extent && v < 1)
      return "`--arg " + kv + "`: on target tpu a run-time extent is at least 1 (the HBM buffers it sizes cannot be empty)";
    if (!p->param.empty()) out.push_back({p->param, v});
  }
  return {};
}

}  // namespace vx::codegen::tpu
