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

}  // namespace vx::driver
