// SAXPY and a block-wise sum reduction, with a small RAII wrapper for
// device buffers and error checking on every CUDA call.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(err_));                              \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

namespace kernels {

constexpr int kBlockSize = 256;

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

__device__ float warp_sum(float value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffff, value, offset);
  }
  return value;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[kBlockSize / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float value = i < n ? in[i] : 0.0f;
  value = warp_sum(value);
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  if (lane == 0) {
    partial[warp] = value;
  }
  __syncthreads();
  if (warp == 0) {
    value = lane < blockDim.x / warpSize ? partial[lane] : 0.0f;
    value = warp_sum(value);
    if (lane == 0) {
      atomicAdd(out, value);
    }
  }
}

}  // namespace kernels

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(data_); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void upload(const std::vector<T>& host) {
    CUDA_CHECK(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
  }

  std::vector<T> download() const {
    std::vector<T> host(count_);
    CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

  T* get() { return data_; }
  size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  size_t count_;
};

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  DeviceBuffer<float> dx(n), dy(n), dsum(1);
  dx.upload(x);
  dy.upload(y);
  CUDA_CHECK(cudaMemset(dsum.get(), 0, sizeof(float)));

  int blocks = (n + kernels::kBlockSize - 1) / kernels::kBlockSize;
  kernels::saxpy<<<blocks, kernels::kBlockSize>>>(n, 3.0f, dx.get(), dy.get());
  kernels::block_sum<<<blocks, kernels::kBlockSize>>>(dy.get(), dsum.get(), n);
  CUDA_CHECK(cudaGetLastError());

  float total = dsum.download()[0];
  std::printf("sum = %.1f (expected %.1f)\n", total, 5.0f * n);
  return total == 5.0f * n ? EXIT_SUCCESS : EXIT_FAILURE;
}
