#include "driver/Npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sys/stat.h>

#include "vx/data.h"

namespace vx::driver {

namespace {

// The header dict NumPy writes, `{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }` and blanks, parsed as the Python literal it is: each
// key's value as its text (a later key of the same name replaces an
// earlier one, as in Python), nothing after the closing brace but blanks.
// False on anything else, with `why`.
bool parseHeaderDict(const std::string& text, std::map<std::string, std::string>& out, std::string& why) {
  size_t i = 0, n = text.size();
  auto blanks = [&] {
    while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  };
  // A quoted string (no escapes: NumPy's keys and type strings have none).
  auto quoted = [&](std::string& s) {
    if (i >= n || (text[i] != '\'' && text[i] != '"')) return false;
    char q = text[i++];
    size_t b = i;
    while (i < n && text[i] != q && text[i] != '\\') ++i;
    if (i >= n || text[i] != q) return false;
    s = text.substr(b, i - b);
    ++i;
    return true;
  };
  // A value: a string, a name (`True`), a number, or a bracketed group
  // (`(2, 3)`, `[...]`) kept whole as text.
  bool unclosed = false;
  auto value = [&](std::string& v) {
    size_t b = i;
    std::string ignored;
    if (i < n && (text[i] == '\'' || text[i] == '"')) {
      if (!quoted(ignored)) return false;
    } else if (i < n && (text[i] == '(' || text[i] == '[')) {
      int depth = 0;
      for (; i < n; ++i) {
        if (text[i] == '\'' || text[i] == '"') {
          if (!quoted(ignored)) return false;
          --i;
          continue;
        }
        if (text[i] == '(' || text[i] == '[') ++depth;
        if ((text[i] == ')' || text[i] == ']') && --depth == 0) break;
      }
      if (i >= n) return unclosed = true, false;
      ++i;
    } else {
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '-' ||
                       text[i] == '+' || text[i] == '.'))
        ++i;
      if (i == b) return false;
    }
    v = text.substr(b, i - b);
    return true;
  };
  blanks();
  if (i >= n || text[i] != '{') return why = "the header is no dict", false;
  ++i;
  for (;;) {
    blanks();
    if (i < n && text[i] == '}') break;
    std::string key, v;
    if (!quoted(key)) return why = "the header dict holds something other than quoted keys", false;
    blanks();
    if (i >= n || text[i] != ':') return why = "no `:` after the header key `" + key + "`", false;
    ++i;
    blanks();
    if (!value(v))
      return why = "the header key `" + key + "` has no value it can read" + (unclosed ? ": a bracket is not closed" : ""),
             false;
    out[key] = v;
    blanks();
    if (i < n && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < n && text[i] == '}') break;
    return why = "the header dict is not closed", false;
  }
  ++i;
  blanks();
  if (i != n) return why = "text after the header dict", false;
  return true;
}

}  // namespace

bool readNpy(const std::string& path, NpyArray& out, std::string& error) {
  // A regular file, of at most what `vxc run` allocates (2^31 elements of
  // 8 bytes) and a header: not a folder, a device or a pipe read forever.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    error = "cannot read `" + path + "`: " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read `" + path + "`: it is not a regular file";
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > (uint64_t{8} << 31) + (uint64_t{1} << 20)) {
    error = "cannot read `" + path + "`: it is larger than the 2^31 elements `vxc run` allocates";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read `" + path + "`";
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto bad = [&](const std::string& why) {
    error = "`" + path + "` is not a NumPy array this version reads: " + why;
    return false;
  };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return bad("no .npy magic");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0, start = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    start = 12;
  } else {
    return bad("format version " + std::to_string(major));
  }
  if (bytes.size() < start + headerLen) return bad("truncated header");
  std::string dict = bytes.substr(start, headerLen), why;
  std::map<std::string, std::string> keys;
  if (!parseHeaderDict(dict, keys, why)) return bad(why);
  for (const auto& [key, v] : keys)
    if (key != "descr" && key != "fortran_order" && key != "shape")
      return bad("the header key `" + key + "` (a .npy header has descr, fortran_order and shape)");
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!keys.count(key)) return bad(std::string("the header has no `") + key + "`");
  std::string descr = keys["descr"], order = keys["fortran_order"], shape = keys["shape"];
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"')) return bad("descr `" + descr + "` is no type string");
  out.descr = descr.substr(1, descr.size() - 2);
  if (order == "True") return bad("Fortran order");
  if (order != "False") return bad("fortran_order `" + order + "` is neither True nor False");
  size_t width = out.descr == "<f2" ? 2 : out.descr == "<f4" ? 4 : out.descr == "<f8" ? 8 : 0;
  if (!width) return bad("element type `" + out.descr + "` (f2, f4 and f8 are read)");
  // The shape: a Python tuple of non-negative integers, `(16, 256)`,
  // `(8,)`, `()`.
  out.shape.clear();
  uint64_t count = 1;
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') return bad("shape `" + shape + "` is no tuple");
  {
    size_t i = 1, end = shape.size() - 1;
    auto blanks = [&] {
      while (i < end && shape[i] == ' ') ++i;
    };
    blanks();
    while (i < end) {
      if (shape[i] < '0' || shape[i] > '9') return bad("shape `" + shape + "` holds something other than sizes");
      uint64_t d = 0;
      for (; i < end && shape[i] >= '0' && shape[i] <= '9'; ++i) {
        if (d > (UINT64_MAX - 9) / 10) return bad("a dimension is too large");
        d = d * 10 + static_cast<uint64_t>(shape[i] - '0');
      }
      out.shape.push_back(d);
      if (d && count > UINT64_MAX / d) return bad("too many elements");
      count *= d;
      blanks();
      if (i < end && shape[i] != ',') return bad("shape `" + shape + "` holds something other than sizes");
      if (i < end) ++i;
      blanks();
    }
    if (out.shape.size() == 1 && shape.find(',') == std::string::npos)
      return bad("shape `" + shape + "` is no tuple (one size is written `(n,)`)");
  }
  size_t data = start + headerLen;
  if (count > (bytes.size() - data) / width || bytes.size() - data != count * width)
    return bad("the data is not " + std::to_string(count) + " elements of " + out.descr);
  out.values.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const char* p = bytes.data() + data + i * width;
    if (width == 2) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      out.values[i] = vx_f32_from_f16(h);
    } else if (width == 4) {
      float f;
      std::memcpy(&f, p, 4);
      out.values[i] = f;
    } else {
      std::memcpy(&out.values[i], p, 8);
    }
  }
  return true;
}

bool writeNpyF32(const std::string& path, const std::vector<uint64_t>& shape, const std::vector<float>& values,
                 std::string& error) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const char len[2] = {static_cast<char>(dict.size() & 0xff), static_cast<char>(dict.size() >> 8)};
  out.write(magic, 8);
  out.write(len, 2);
  out << dict;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  out.close();
  if (!out) {
    error = "cannot write `" + path + "`";
    return false;
  }
  return true;
}

namespace {
// A double to the nearest float (ties to even). From FLT_MAX + half an ulp
// (2^128 - 2^103) on, an infinity; below it, FLT_MAX (the cast alone is
// undefined past float's range).
float toF32(double v) {
  constexpr double kMax = 0x1.fffffep127, kRoundsUp = 0x1.ffffffp127;
  if (v >= kRoundsUp) return HUGE_VALF;
  if (v <= -kRoundsUp) return -HUGE_VALF;
  if (v > kMax) return static_cast<float>(kMax);
  if (v < -kMax) return static_cast<float>(-kMax);
  return static_cast<float>(v);
}

// A double to a float rounded to odd: truncated, and where that was
// inexact, with the last bit set. Rounding the result again to 16 bits
// (bf16, f16: at least 2 bits fewer) gives the nearest 16-bit value of the
// double; rounding to the nearest float first rounds twice (a value just
// above a 16-bit halfway point lands on it, then goes to even).
float toF32Odd(double v) {
  if (std::isnan(v)) return static_cast<float>(v);
  float f = toF32(v);
  if (std::isinf(f) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);  // toward zero
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}
}  // namespace

ArrayGap arrayGap(const std::vector<double>& x, const std::vector<double>& y) {
  ArrayGap g;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    const double a = x[i], b = y[i];
    double d = 0;
    if (a == b || (std::isnan(a) && std::isnan(b)))
      d = 0;
    else if (!std::isfinite(a) || !std::isfinite(b))
      d = INFINITY;
    else
      d = std::fabs(a - b);
    g.maxAbs = std::max(g.maxAbs, d);
    g.maxRel = std::max(g.maxRel, d / std::max(std::fabs(b), 1e-30));
    if (std::isfinite(a)) g.largestX = std::max(g.largestX, std::fabs(a));
    if (std::isfinite(b)) g.largestY = std::max(g.largestY, std::fabs(b));
  }
  return g;
}

std::string encodeElements(const std::vector<double>& values, const std::string& type) {
  std::string out;
  auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  if (type == "f32") {
    out.reserve(values.size() * 4);
    for (double v : values) {
      float f = toF32(v);
      put(&f, 4);
    }
  } else if (type == "f64") {
    out.reserve(values.size() * 8);
    for (double v : values) put(&v, 8);
  } else if (type == "bf16" || type == "f16") {
    out.reserve(values.size() * 2);
    for (double v : values) {
      uint16_t h = type == "bf16" ? vx_bf16_from_f32(toF32Odd(v)) : vx_f16_from_f32(toF32Odd(v));
      put(&h, 2);
    }
  }
  return out;
}

}  // namespace vx::driver
