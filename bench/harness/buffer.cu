#include "buffer.hpp"

#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

namespace sgemm::harness {

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(err, std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

void* device_alloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory(bytes, "out of device memory: needed " + std::to_string(bytes) +
                                 " bytes (" + std::to_string(bytes >> 20) + " MiB), " +
                                 std::to_string(free_b >> 20) + " MiB free of " +
                                 std::to_string(total_b >> 20) + " MiB");
  }
  if (err != cudaSuccess) throw_cuda(err, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

DeviceBuffer::DeviceBuffer(size_t count) : count_(count) {
  const size_t bytes = count * sizeof(float) + 2 * kGuardBytes;
  raw_ = static_cast<unsigned char*>(device_alloc(bytes));
  data_ = reinterpret_cast<float*>(raw_ + kGuardBytes);
  SGEMM_CUDA(cudaMemset(raw_, kGuardByte, kGuardBytes));
  SGEMM_CUDA(cudaMemset(raw_ + kGuardBytes + count * sizeof(float), kGuardByte, kGuardBytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (raw_) cudaFree(raw_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : raw_(std::exchange(o.raw_, nullptr)), data_(std::exchange(o.data_, nullptr)),
      count_(std::exchange(o.count_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (raw_) cudaFree(raw_);
    raw_ = std::exchange(o.raw_, nullptr);
    data_ = std::exchange(o.data_, nullptr);
    count_ = std::exchange(o.count_, 0);
  }
  return *this;
}

bool DeviceBuffer::guards_intact() const {
  if (!raw_) return true;
  std::vector<unsigned char> head(kGuardBytes), tail(kGuardBytes);
  SGEMM_CUDA(cudaMemcpy(head.data(), raw_, kGuardBytes, cudaMemcpyDeviceToHost));
  SGEMM_CUDA(cudaMemcpy(tail.data(), raw_ + kGuardBytes + count_ * sizeof(float), kGuardBytes,
                        cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < kGuardBytes; ++i)
    if (head[i] != kGuardByte || tail[i] != kGuardByte) return false;
  return true;
}

}  // namespace sgemm::harness
