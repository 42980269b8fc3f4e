#include "nvrtc_compile.hpp"

#include <nvrtc.h>

namespace sgemm::autotune {

Compiled compile(const Config& c, const std::string& kernels_dir, const std::string& arch) {
  Compiled out;
  const std::string src = "#include \"" + c.rung_file() + "\"\n";
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), "autotune.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    out.log = "nvrtcCreateProgram failed";
    return out;
  }
  const std::string name = c.name_expression();
  nvrtcAddNameExpression(prog, name.c_str());
  const std::string inc = "-I" + kernels_dir, gpu = "--gpu-architecture=" + arch;
  const char* opts[] = {gpu.c_str(), "--std=c++17", inc.c_str(), "-lineinfo"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 4, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(prog, out.log.data());
  if (r == NVRTC_SUCCESS) {
    const char* lowered = nullptr;
    nvrtcGetLoweredName(prog, name.c_str(), &lowered);
    out.lowered = lowered ? lowered : "";
    size_t n = 0;
    nvrtcGetCUBINSize(prog, &n);
    out.cubin.resize(n);
    nvrtcGetCUBIN(prog, out.cubin.data());
    out.ok = n > 0 && !out.lowered.empty();
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

}  // namespace sgemm::autotune
