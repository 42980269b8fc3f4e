#include "nvml.hpp"

#ifdef SGEMM_HAVE_NVML

#include <dlfcn.h>
#include <nvml.h>

#include <cuda_runtime.h>

namespace sgemm::harness::nvml {

namespace {

// The functions come from the driver's library, opened here at run time, with nvml.h's own
// prototypes. Linking libnvidia-ml.so.1 instead would stop sgemm_bench (and every test linked
// with the harness) from starting at all on a machine without the driver, where it must start to
// say "no NVIDIA driver found" (exit 3) or to refuse a bad command (exit 2).
class Library {
 public:
  static const Library& get() {
    static const Library lib;
    return lib;
  }
  bool ok() const { return ok_; }
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) handle_by_pci = nullptr;
  decltype(&nvmlDeviceGetClockInfo) clock_info = nullptr;
  decltype(&nvmlSystemGetDriverVersion) driver_version = nullptr;

 private:
  Library() {
    void* so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!so) return;
    const auto init = symbol<decltype(&nvmlInit_v2)>(so, "nvmlInit_v2");
    handle_by_pci = symbol<decltype(handle_by_pci)>(so, "nvmlDeviceGetHandleByPciBusId_v2");
    clock_info = symbol<decltype(clock_info)>(so, "nvmlDeviceGetClockInfo");
    driver_version = symbol<decltype(driver_version)>(so, "nvmlSystemGetDriverVersion");
    ok_ = init && handle_by_pci && clock_info && driver_version && init() == NVML_SUCCESS;
  }
  template <class Fn>
  static Fn symbol(void* so, const char* name) {
    return reinterpret_cast<Fn>(dlsym(so, name));
  }
  bool ok_ = false;
};

}  // namespace

bool available() { return Library::get().ok(); }

int sm_clock_mhz(int cuda_device) {
  const Library& nv = Library::get();
  if (!nv.ok()) return -1;
  char bus[64];
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) return -1;
  nvmlDevice_t device{};
  unsigned mhz = 0;
  if (nv.handle_by_pci(bus, &device) != NVML_SUCCESS || nv.clock_info(device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS)
    return -1;
  return int(mhz);
}

std::string driver_version() {
  const Library& nv = Library::get();
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  if (!nv.ok() || nv.driver_version(buf, sizeof buf) != NVML_SUCCESS) return "";
  return buf;
}

}  // namespace sgemm::harness::nvml

#else  // no nvml.h in this toolkit: the SM clock comes from the probe kernel (clocks.hpp)

namespace sgemm::harness::nvml {
bool available() { return false; }
int sm_clock_mhz(int) { return -1; }
std::string driver_version() { return ""; }
}  // namespace sgemm::harness::nvml

#endif
