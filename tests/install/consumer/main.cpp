// Calls the Vx kernel through the header vxc generated and checks it
// against a plain C++ loop: out = sum_i tiles[i] @ w.
#include <cmath>
#include <cstdio>
#include <vector>

#include "accumulate.h"  // both headers are `accumulate.h`: the include path
#include "../../doubled/cpu/accumulate.h"  // finds the first; the other by its folder

int main() {
  const int n = 3, d = 64;
  std::vector<float> tiles(n * d * d), w(d * d), out(d * d, 0.0f), want(d * d, 0.0f);
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 8.0f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 4.0f;
  vx_accumulate(tiles.data(), n, w.data(), out.data());
  for (int t = 0; t < n; ++t)
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c) {
        float s = 0;
        for (int k = 0; k < d; ++k) s += tiles[(t * d + r) * d + k] * w[k * d + c];
        want[r * d + c] += s;
      }
  double worst = 0;
  for (int i = 0; i < d * d; ++i) worst = std::fmax(worst, std::fabs(out[i] - want[i]));
  std::printf("max |out - reference| = %g\n", worst);
  if (worst > 1e-3) return 1;
  // The other kernel's function of the same name, under its prefix.
  std::vector<float> twice(d * d, 0.0f);
  doubled_accumulate(tiles.data(), n, w.data(), twice.data());
  for (int i = 0; i < d * d; ++i)
    if (twice[i] != 2 * tiles[i]) {
      std::printf("doubled_accumulate: element %d is %g, not %g\n", i, twice[i], 2 * tiles[i]);
      return 1;
    }
  std::puts("consumer ok");
  return 0;
}
