# lit configuration: codegen and CLI output tests with FileCheck.
import os
import lit.formats

config.name = "vxc"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".vx", ".test", ".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vxc_build_dir, "tests", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]
config.environment["PATH"] = os.pathsep.join(
    [config.vxc_bin_dir, "/usr/lib/llvm-16/bin", config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%vxc", os.path.join(config.vxc_bin_dir, "vxc")))
config.substitutions.append(("%vx-opt", os.path.join(config.vxc_build_dir, "src", "dialect", "vx-opt")))
