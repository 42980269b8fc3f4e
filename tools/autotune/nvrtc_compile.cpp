#include "nvrtc_compile.hpp"

#include <nvrtc.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

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

Compiled compile_nvcc(const Config& c, const std::string& kernels_dir, const std::string& arch,
                      const std::string& lowered, const std::string& work_dir) {
  Compiled out;
  std::string tag = c.tile();
  const std::string src = work_dir + "/rung" + std::to_string(c.rung) + "_" + tag + ".cu";
  const std::string bin = src + ".cubin", log = src + ".log";
  {
    // Explicitly instantiate the kernel, as the library's launcher does implicitly.
    std::ofstream f(src);
    f << "#define SGEMM_DEVICE_ONLY\n#include \"" << c.rung_file() << "\"\n"
      << "template __global__ void " << c.name_expression()
      << "(int, int, int, float, const float*, int, const float*, int, float, float*, int);\n";
  }
  std::ostringstream cmd;
  cmd << "nvcc -cubin -arch=" << arch << " -O3 -std=c++17 -lineinfo --expt-relaxed-constexpr -I\"" << kernels_dir
      << "\" -o \"" << bin << "\" \"" << src << "\" > \"" << log << "\" 2>&1";
  const int rc = std::system(cmd.str().c_str());
  std::ifstream lf(log);
  out.log.assign(std::istreambuf_iterator<char>(lf), {});
  if (rc != 0) return out;
  std::ifstream bf(bin, std::ios::binary);
  out.cubin.assign(std::istreambuf_iterator<char>(bf), {});
  out.lowered = lowered;
  out.ok = !out.cubin.empty();
  return out;
}

}  // namespace sgemm::autotune
