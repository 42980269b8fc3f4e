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
  decltype(&nvmlDeviceGetTotalEnergyConsumption) total_energy = nullptr;  // optional: energy_mj() says -1 without it

 private:
  Library() {
    void* so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!so) return;
    const auto init = symbol<decltype(&nvmlInit_v2)>(so, "nvmlInit_v2");
    handle_by_pci = symbol<decltype(handle_by_pci)>(so, "nvmlDeviceGetHandleByPciBusId_v2");
    clock_info = symbol<decltype(clock_info)>(so, "nvmlDeviceGetClockInfo");
    driver_version = symbol<decltype(driver_version)>(so, "nvmlSystemGetDriverVersion");
    total_energy = symbol<decltype(total_energy)>(so, "nvmlDeviceGetTotalEnergyConsumption");
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

namespace {
// NVML's handle of a CUDA device (by its PCI bus id); false when unknown.
bool handle_of(const Library& nv, int cuda_device, nvmlDevice_t* device) {
  char bus[64];
  return nv.ok() && cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) == cudaSuccess &&
         nv.handle_by_pci(bus, device) == NVML_SUCCESS;
}
}  // namespace

int sm_clock_mhz(int cuda_device) {
  const Library& nv = Library::get();
  nvmlDevice_t device{};
  unsigned mhz = 0;
  if (!handle_of(nv, cuda_device, &device) || nv.clock_info(device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS) return -1;
  return int(mhz);
}

long long energy_mj(int cuda_device) {
  const Library& nv = Library::get();
  nvmlDevice_t device{};
  unsigned long long mj = 0;
  if (!nv.total_energy || !handle_of(nv, cuda_device, &device) || nv.total_energy(device, &mj) != NVML_SUCCESS)
    return -1;
  return static_cast<long long>(mj);
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
long long energy_mj(int) { return -1; }
}  // namespace sgemm::harness::nvml

#endif
