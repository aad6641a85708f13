// NumPy `.npy` files (format 1.0 and 2.0, little-endian, C order) of
// f2/f4/f8: what `vxc run --output` writes and `--compare` reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vx::driver {

struct NpyArray {
  std::string descr;              // "<f4"
  std::vector<uint64_t> shape;
  std::vector<double> values;     // widened
};

// False with `error` set on a file that is not such an array.
bool readNpy(const std::string& path, NpyArray& out, std::string& error);

// Writes `values` as a little-endian f4 array of `shape` (format 1.0), the
// way the `vxc run` harness writes its outputs. False with `error` set when
// the file cannot be written.
bool writeNpyF32(const std::string& path, const std::vector<uint64_t>& shape, const std::vector<float>& values,
                 std::string& error);

// How far two arrays of one size are apart, element by element: equal
// values (infinities of one sign, NaNs on both sides) agree; a non-finite
// value against anything else differs without bound. `maxRel` is relative
// to each element of `y`; `largestX`, `largestY`: the largest finite
// magnitude of each (an infinity must not make a tolerance infinite).
struct ArrayGap {
  double maxAbs = 0, maxRel = 0, largestX = 0, largestY = 0;
};
ArrayGap arrayGap(const std::vector<double>& x, const std::vector<double>& y);

// `values` as raw little-endian elements of a Vx buffer type (f32, f64,
// bf16, f16), each rounded to the nearest; empty for another type.
std::string encodeElements(const std::vector<double>& values, const std::string& type);

}  // namespace vx::driver
