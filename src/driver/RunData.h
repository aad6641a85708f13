// `vxc run`'s data in and out, the same on every target: `--input
// NAME=FILE.npy` checked against the entry's buffers, and the outputs each
// target writes to `--output DIR` as NAME.npy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vx::driver {

// A parameter of the entry, as `--input` and `--output` see it.
struct BufferSpec {
  enum class Kind { Scalar, Tensor, Vec };
  std::string name;
  Kind kind = Kind::Scalar;
  std::string type;            // buffers: the element type (f32 f64 bf16 f16)
  std::vector<int64_t> shape;  // the tensor's (a Vec's element's) shape
  std::vector<std::string> extents;  // per dimension, its run-time extent's name ("" where static)
  bool mut = false;            // `&mut`: an output
};

// One `--input NAME=FILE.npy`, read and checked.
struct Input {
  std::string name;
  std::string type;             // the parameter's element type
  std::vector<uint64_t> shape;  // the array's shape
  std::vector<double> values;   // C order
};

// Reads and checks `--input NAME=FILE` against the entry `entry` with
// parameters `specs`: a tensor takes an array of exactly its shape, a
// `Vec<Tensor<T, S>>` one of shape (n, S...), whose n is then the Vec's
// length (added to `args` as `NAME=n`, or checked against a `--arg` that
// names it); a tensor with run-time extents one whose dimensions give them
// (added to `args` as `m=512`, or checked against a `--arg` or an earlier
// input that set them). Empty when fine, else the message of a usage error.
std::string readInput(const std::string& entry, const std::vector<BufferSpec>& specs, const std::string& kv,
                      std::vector<std::string>& args, Input& out);

// The shape as NumPy prints it: `(64, 64)`, `(8,)`.
std::string shapeText(const std::vector<uint64_t>& shape);

}  // namespace vx::driver
