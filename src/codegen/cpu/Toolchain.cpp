// Driving g++ and running built programs with fork/exec (no shell, so paths
// need no quoting).
#include "codegen/cpu/Toolchain.h"

#include <cctype>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#ifndef VXC_RUNTIME_INCLUDE
#define VXC_RUNTIME_INCLUDE "include"
#endif

namespace vx::cpu {

namespace {

std::string readAll(int fd) {
  std::string s;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<size_t>(n));
  }
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, bool separate) {
  ProcessResult r;
  // Temporary files rather than pipes: two pipes would need a poll loop to
  // avoid a deadlock when the child fills one.
  char outName[] = "/tmp/vxc-outXXXXXX", errName[] = "/tmp/vxc-errXXXXXX";
  int outFd = mkstemp(outName), errFd = separate ? mkstemp(errName) : -1;
  if (outFd < 0 || (separate && errFd < 0)) {
    r.output = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return r;
  }
  unlink(outName);
  if (separate) unlink(errName);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(outFd, 1);
    dup2(separate ? errFd : outFd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run `%s`: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  if (pid < 0) {
    r.output = std::string("cannot start a process: ") + std::strerror(errno);
    close(outFd);
    if (separate) close(errFd);
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  lseek(outFd, 0, SEEK_SET);
  r.stdoutText = readAll(outFd);
  close(outFd);
  if (separate) {
    lseek(errFd, 0, SEEK_SET);
    r.stderrText = readAll(errFd);
    close(errFd);
    r.output = r.stdoutText + r.stderrText;
  } else {
    r.output = r.stdoutText;
  }
  return r;
}

namespace {
bool hasRuntime(const std::string& dir) { return access((dir + "/vx/runtime.h").c_str(), R_OK) == 0; }
}  // namespace

std::string runtimeIncludeDir() {
  if (const char* env = std::getenv("VXC_INCLUDE"); env && *env) return env;
  // An installed vxc: PREFIX/bin/vxc and PREFIX/include/vx/.
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    std::string dir(exe);
    dir = dir.substr(0, dir.find_last_of('/'));
    std::string installed = dir.substr(0, dir.find_last_of('/')) + "/include";
    if (hasRuntime(installed)) return installed;
  }
  return VXC_RUNTIME_INCLUDE;  // the source tree this vxc was built from
}

std::string runtimeIncludeError() {
  std::string dir = runtimeIncludeDir();
  if (hasRuntime(dir)) return {};
  const char* env = std::getenv("VXC_INCLUDE");
  return "vxc's runtime headers are not in `" + dir + "` (no `vx/runtime.h` there" +
         (env && *env ? std::string("; VXC_INCLUDE names that folder") : std::string("")) +
         "); set VXC_INCLUDE to the folder that holds `vx/`, or reinstall vxc with its `include/`";
}

bool validTargetCpu(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::vector<std::string> compilerCommand(const std::string& source, const std::string& output, Artifact kind,
                                         const std::string& targetCpu) {
  const char* cxx = std::getenv("CXX");
  std::vector<std::string> cmd{cxx && *cxx ? cxx : "g++", "-std=c++17"};
  const char* flags = std::getenv("VXC_CXXFLAGS");
  for (const std::string& f : split(flags ? flags : "-O3")) cmd.push_back(f);
  // One result on every machine (vx/vmath.h): no FMA contraction where the
  // CPU has it; neither errno nor traps keep a math loop from vectorising.
  cmd.insert(cmd.end(), {"-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math"});
  // With -march=native the matrix unit's kernel uses the host's widest
  // vectors; without it the code runs on any machine of the architecture.
  if (!targetCpu.empty()) cmd.push_back("-march=" + targetCpu);
  cmd.insert(cmd.end(), {"-pthread", "-I", runtimeIncludeDir()});
  switch (kind) {
    case Artifact::Object: cmd.insert(cmd.end(), {"-fPIC", "-c"}); break;
    case Artifact::SharedLibrary: cmd.insert(cmd.end(), {"-fPIC", "-shared"}); break;
    case Artifact::Executable: break;
  }
  cmd.insert(cmd.end(), {source, "-o", output});
  return cmd;
}

CompileResult compileCpp(const std::string& source, const std::string& output, Artifact kind,
                         const std::string& targetCpu) {
  return runCompiler(compilerCommand(source, output, kind, targetCpu));
}

CompileResult runCompiler(const std::vector<std::string>& cmd) {
  CompileResult c;
  for (const std::string& a : cmd) c.command += (c.command.empty() ? "" : " ") + a;
  ProcessResult r = runProcess(cmd);
  c.ok = r.status == 0;
  c.log = r.output;
  return c;
}

std::string findNvcc() {
  if (const char* env = std::getenv("VXC_NVCC"); env && *env) return access(env, X_OK) == 0 ? env : "";
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty() && access((dir + "/nvcc").c_str(), X_OK) == 0) return dir + "/nvcc";
  }
  return access("/usr/local/cuda/bin/nvcc", X_OK) == 0 ? "/usr/local/cuda/bin/nvcc" : "";
}

bool gpuPresent() {
  if (const char* env = std::getenv("VXC_GPU"); env && *env) return std::string(env) != "0";
  for (const char* node : {"/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia", "/dev/dxg"})
    if (access(node, F_OK) == 0) return true;
  return false;
}

std::vector<std::string> cudaCompilerCommand(const std::string& nvcc, const std::string& source,
                                             const std::string& output, Artifact kind, const std::string& arch) {
  std::vector<std::string> cmd{nvcc, "-std=c++17", "-O3", "-arch=" + arch, "--expt-relaxed-constexpr",
                               "-x", "cu", "-I", runtimeIncludeDir()};
  switch (kind) {
    case Artifact::Object: cmd.insert(cmd.end(), {"-Xcompiler", "-fPIC", "-c"}); break;
    case Artifact::SharedLibrary: cmd.insert(cmd.end(), {"-Xcompiler", "-fPIC", "-shared"}); break;
    case Artifact::Executable: break;
  }
  cmd.insert(cmd.end(), {source, "-o", output});
  return cmd;
}

std::vector<std::string> interpreterCommand(const std::string& source, const std::string& output,
                                            const std::string& arch, Artifact kind) {
  std::vector<std::string> cmd = compilerCommand(source, output, kind, "native");
  // The generated .cu, included by the harness, built as host C++, with the
  // tensor cores of `arch` (sm_100a: tcgen05, sm_90a: wgmma) modelled.
  cmd.insert(cmd.begin() + 2, "-DVX_CUDA_INTERPRET=1");
  cmd.insert(cmd.begin() + 3, arch.rfind("sm_90", 0) == 0 ? "-DVX_CUDA_SM=90" : "-DVX_CUDA_SM=100");
  // The interpreter checks rather than races: compile time matters more.
  cmd.insert(cmd.end() - 3, "-O1");
  // A .cu unit is C++ to the host compiler.
  if (source.size() > 3 && source.compare(source.size() - 3, 3, ".cu") == 0) cmd.insert(cmd.end() - 3, {"-x", "c++"});
  return cmd;
}

}  // namespace vx::cpu
