// Device buffers with guard regions: every allocation is surrounded by bytes of a known
// pattern, checked after each run, so a kernel that writes outside its operand is caught
// even when the write lands in memory the process owns.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sgemm::harness {

class DeviceBuffer {
 public:
  static constexpr size_t kGuardBytes = 4096;    // keeps the payload 256-byte aligned
  static constexpr unsigned char kGuardByte = 0xA5;

  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count);  // floats; throws OutOfMemory / CudaError
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  float* data() const { return data_; }
  size_t size() const { return count_; }
  // True when both guard regions still hold the pattern (synchronises the device).
  bool guards_intact() const;

 private:
  unsigned char* raw_ = nullptr;
  float* data_ = nullptr;
  size_t count_ = 0;
};

// cudaMalloc with a clear out-of-memory error that names the byte count.
void* device_alloc(size_t bytes);

}  // namespace sgemm::harness
