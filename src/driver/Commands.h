// One function per `vxc` subcommand; main.cpp dispatches.
#pragma once

#include <string>
#include <vector>

namespace vx::driver {

int cmdCheck(const std::vector<std::string>& args);
int cmdExplain(const std::vector<std::string>& args);
int cmdTestUi(const std::vector<std::string>& args);

}  // namespace vx::driver
