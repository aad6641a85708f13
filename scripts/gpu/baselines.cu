// The baselines scripts/gpu-check.sh compares Vx kernels with, on the GPU it
// runs on: cuBLAS SGEMM with TF32 tensor cores at N^3 (default 4096), and the
// device-to-device copy bandwidth (the roofline of a stream kernel).
// Prints `cublas_tf32_tflops X` and `copy_gbps Y`.
//   nvcc -O3 -o baselines baselines.cu -lcublas && ./baselines [N]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e_));               \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)
#define CHECK_BLAS(x)                                                                    \
  do {                                                                                   \
    cublasStatus_t s_ = (x);                                                             \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
      std::fprintf(stderr, "error: %s: cuBLAS status %d\n", #x, static_cast<int>(s_));   \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const size_t elems = static_cast<size_t>(n) * n;
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, elems * sizeof(float)));
  CHECK(cudaMalloc(&b, elems * sizeof(float)));
  CHECK(cudaMalloc(&c, elems * sizeof(float)));
  CHECK(cudaMemset(a, 0, elems * sizeof(float)));
  CHECK(cudaMemset(b, 0, elems * sizeof(float)));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  const float one = 1.0f, zero = 0.0f;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));  // warm-up
  const int reps = 10;
  CHECK(cudaEventRecord(t0));
  for (int i = 0; i < reps; ++i)
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  std::printf("cublas_tf32_tflops %.2f\n", 2.0 * n * n * static_cast<double>(n) * reps / (ms * 1e-3) / 1e12);

  CHECK(cudaMemcpy(c, a, elems * sizeof(float), cudaMemcpyDeviceToDevice));  // warm-up
  CHECK(cudaEventRecord(t0));
  for (int i = 0; i < reps; ++i) CHECK(cudaMemcpy(c, a, elems * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(t1));
  CHECK(cudaEventSynchronize(t1));
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  // A copy reads and writes each byte.
  std::printf("copy_gbps %.1f\n", 2.0 * elems * sizeof(float) * reps / (ms * 1e-3) / 1e9);
  cublasDestroy(h);
  return 0;
}
