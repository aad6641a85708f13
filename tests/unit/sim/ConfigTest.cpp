// Machine parameters: defaults from the documented sources, a config file
// overrides any of them, and docs/tpu/sim.md lists exactly the table.
#include <fstream>
#include <sstream>

#include "SimTestUtil.h"

using namespace simtest;
using vx::sim::Config;

TEST_CASE("the default machine is a TPU v5e TensorCore") {
  Config c;
  CHECK(c.vmemBytes == 128ull << 20);
  CHECK(c.smemBytes == 1ull << 20);
  CHECK(c.hbmBytes == 16ull << 30);
  CHECK(c.hbmBytesPerCycle() == doctest::Approx(546.0));
  CHECK(c.mxuCount * c.mxuDim * c.mxuDim == 65536);
  CHECK(c.vpuSublanes == 8);
  CHECK(c.vpuLanes == 128);
}

TEST_CASE("a config file overrides parameters; comments and blanks are ignored") {
  Config c;
  auto errors = vx::sim::parseConfig("# slower machine\n\ndma_engines = 2\n  hbm_gbps=409.5  # half\n", "m.cfg", c);
  CHECK(errors.empty());
  CHECK(c.dmaEngines == 2);
  CHECK(c.hbmGbps == 409.5);
}

TEST_CASE("config errors name the file, the line and the problem") {
  Config c;
  auto errors = vx::sim::parseConfig("dma_engnes = 2\nmxu_count = -1\nmxu_dim = 0\nclock_ghz\nvpu_lanes = 8x\n", "m.cfg", c);
  REQUIRE(errors.size() == 5);
  CHECK(contains(errors[0], "m.cfg:1: error: unknown machine parameter `dma_engnes`"));
  CHECK(contains(errors[1], "m.cfg:2: error: `mxu_count` takes a non-negative integer, not `-1`"));
  CHECK(contains(errors[2], "m.cfg:3: error: `mxu_dim` must be in 1...1024, not 0"));
  CHECK(contains(errors[3], "m.cfg:4: error: expected `key = value`"));
  CHECK(contains(errors[4], "m.cfg:5:"));
}

TEST_CASE("run() refuses a machine built in code with parameters out of range") {
  vx::sim::Options opt;
  opt.config.dmaEngines = 0;
  opt.config.clockGhz = 0;
  vx::sim::Result r = runText(".vxdma 1\n  halt\n", opt);
  CHECK(r.status == vx::sim::Status::LoadError);
  REQUIRE(r.errors.size() == 2);
  CHECK(contains(r.errors[0], "`clock_ghz` = 0 is outside 0.001...1000"));
  CHECK(contains(r.errors[1], "`dma_engines` = 0 is outside 1...64"));
  CHECK(vx::sim::checkConfig(Config{}).empty());
}

TEST_CASE("printConfig writes a file that reads back to the same machine") {
  Config c;
  c.dmaLatency = 1234;
  c.clockGhz = 0.75;
  Config back;
  CHECK(vx::sim::parseConfig(vx::sim::printConfig(c), "p", back).empty());
  CHECK(vx::sim::printConfig(back) == vx::sim::printConfig(c));
  CHECK(back.dmaLatency == 1234);
}

TEST_CASE("docs/tpu/sim.md embeds the generated parameter table verbatim") {
  std::ifstream f(VX_SOURCE_DIR "/docs/tpu/sim.md");
  REQUIRE(f);
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- BEGIN PARAMETERS (generated: vxsim --config-table) -->\n";
  const std::string end = "<!-- END PARAMETERS -->";
  size_t b = doc.find(begin), e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(doc.substr(b + begin.size(), e - b - begin.size()) == vx::sim::configTableMarkdown());
}
