#include "driver/Npy.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

#include "vx/data.h"

namespace vx::driver {

namespace {

// The value of `'key': ...` in a header dict, up to the next top-level comma.
std::string field(const std::string& dict, const std::string& key) {
  size_t at = dict.find("'" + key + "'");
  if (at == std::string::npos) return {};
  at = dict.find(':', at);
  if (at == std::string::npos) return {};
  size_t end = at + 1;
  int depth = 0;
  for (; end < dict.size(); ++end) {
    char c = dict[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if ((c == ',' && depth == 0) || c == '}') break;
  }
  std::string v = dict.substr(at + 1, end - at - 1);
  size_t b = v.find_first_not_of(" "), e = v.find_last_not_of(" ");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
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
  std::string dict = bytes.substr(start, headerLen);
  std::string descr = field(dict, "descr"), order = field(dict, "fortran_order"), shape = field(dict, "shape");
  if (descr.size() < 2) return bad("no descr");
  out.descr = descr.substr(1, descr.size() - 2);
  if (order != "False") return bad("Fortran order");
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
// A double to the nearest float; past float's range, an infinity (the cast
// alone is undefined there).
float toF32(double v) {
  if (v > 3.4028234663852886e38) return HUGE_VALF;
  if (v < -3.4028234663852886e38) return -HUGE_VALF;
  return static_cast<float>(v);
}
}  // namespace

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
      uint16_t h = type == "bf16" ? vx_bf16_from_f32(toF32(v)) : vx_f16_from_f32(toF32(v));
      put(&h, 2);
    }
  }
  return out;
}

}  // namespace vx::driver
