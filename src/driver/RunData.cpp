#include "driver/RunData.h"

#include "base/Text.h"
#include "driver/Npy.h"

#include <cctype>
#include <cstdlib>

namespace vx::driver {

std::string shapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string readInput(const std::string& entry, const std::vector<BufferSpec>& specs, const std::string& kv,
                      std::vector<std::string>& args, Input& out) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size())
    return "`--input " + kv + "`: expected NAME=FILE.npy";
  std::string name = kv.substr(0, eq), path = kv.substr(eq + 1);
  const BufferSpec* spec = nullptr;
  std::vector<std::string> names;
  for (const BufferSpec& s : specs) {
    names.push_back(s.name);
    if (s.name == name) spec = &s;
  }
  if (!spec) {
    std::string close = base::closestMatch(name, names);
    return "`" + entry + "` has no parameter `" + name + "`" + (close.empty() ? "" : "; did you mean `" + close + "`?");
  }
  switch (spec->kind) {
    case BufferSpec::Kind::Scalar: return "`" + name + "` is a scalar; give its value with `--arg " + name + "=VALUE`";
    case BufferSpec::Kind::Tensor:
    case BufferSpec::Kind::Vec: break;
  }
  if (spec->type != "f32" && spec->type != "f64" && spec->type != "bf16" && spec->type != "f16")
    return "`--input " + name + "`: tensors of `" + spec->type + "` cannot be read from .npy in this version";
  NpyArray a;
  std::string error;
  if (!readNpy(path, a, error)) return "`--input " + kv + "`: " + error;
  std::vector<uint64_t> want;
  for (int64_t d : spec->shape) want.push_back(static_cast<uint64_t>(d));
  bool vec = spec->kind == BufferSpec::Kind::Vec;
  auto given = [&](const std::string& n) {
    std::string v;
    for (const std::string& arg : args)
      if (arg.rfind(n + "=", 0) == 0) v = arg.substr(n.size() + 1);
    return v;
  };
  if (!spec->extents.empty()) {
    // Run-time extents: the array's dimensions give them, one value per name.
    std::string written = "(";
    for (size_t d = 0; d < spec->shape.size(); ++d)
      written += (d ? ", " : "") + (spec->extents[d].empty() ? std::to_string(spec->shape[d]) : spec->extents[d]);
    written += spec->shape.size() == 1 ? ",)" : ")";
    if (a.shape.size() != spec->shape.size())
      return "`--input " + kv + "`: `" + name + "` takes an array of shape " + written + "; `" + path + "` holds " +
             shapeText(a.shape);
    std::vector<std::string> set;
    for (size_t d = 0; d < spec->shape.size(); ++d) {
      const std::string& e = spec->extents[d];
      if (e.empty()) {
        if (a.shape[d] != want[d])
          return "`--input " + kv + "`: `" + name + "` takes an array of shape " + written + "; `" + path +
                 "` holds " + shapeText(a.shape);
        continue;
      }
      std::string v = given(e), have = std::to_string(a.shape[d]);
      // By value: `--arg m=016` is 16.
      if (!v.empty() && std::strtoull(v.c_str(), nullptr, 10) != a.shape[d]) {
        std::vector<uint64_t> expected = a.shape;
        for (size_t k = 0; k < spec->shape.size(); ++k)
          if (spec->extents[k].empty())
            expected[k] = want[k];
          else if (!given(spec->extents[k]).empty())
            expected[k] = std::strtoull(given(spec->extents[k]).c_str(), nullptr, 10);
        return "`--input " + kv + "`: `" + name + "` is " + written + " with `" + e + "` = " + v +
               " (from `--arg " + e + "=" + v + "` or another input), so it takes an array of shape " +
               shapeText(expected) + "; `" + path + "` holds " + shapeText(a.shape);
      }
      if (v.empty()) args.push_back(e + "=" + have);
    }
    want = a.shape;
  }
  std::vector<uint64_t> elem = a.shape;
  if (vec) {
    if (a.shape.empty()) return "`--input " + name + "`: `" + name + "` is a Vec; it takes an array of shape (n, ...), not a scalar";
    elem.erase(elem.begin());
  }
  if (elem != want) {
    std::string what = "an array of shape " + shapeText(want);
    if (vec) {
      what = "an array of shape (n,";
      for (size_t i = 0; i < want.size(); ++i) what += " " + std::to_string(want[i]) + (i + 1 < want.size() ? "," : "");
      what += ")";
    }
    return "`--input " + kv + "`: `" + name + "` takes " + what + "; `" + path + "` holds " + shapeText(a.shape);
  }
  if (vec) {
    uint64_t n = a.shape[0];
    std::string given;
    for (const std::string& arg : args)
      if (arg.rfind(name + "=", 0) == 0) given = arg.substr(name.size() + 1);
    // By value, as the harness reads it (`03` is 3); a value that is no
    // number is the harness's usage error.
    if (!given.empty() && std::isdigit(static_cast<unsigned char>(given[0])) &&
        std::strtoull(given.c_str(), nullptr, 10) != n)
      return "`--input " + kv + "` holds " + std::to_string(n) + " tensors, but `--arg " + name + "=" + given +
             "` says " + given;
    if (given.empty()) args.push_back(name + "=" + std::to_string(n));
  }
  out.name = name;
  out.type = spec->type;
  out.shape = a.shape;
  out.values = std::move(a.values);
  return {};
}

}  // namespace vx::driver
