/* A C program that launches an ahead-of-time compiled tritium kernel: the dispatcher of
 * tools.link over two variants of `add_kernel` (pointers divisible by 16, and not).
 * Usage: aot_add_main [n]; prints "OK" and exits 0 when every element matches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "add_kernel.h"

#define CHECK(call)                                                   \
  do {                                                                \
    CUresult r_ = (call);                                             \
    if (r_ != CUDA_SUCCESS) {                                         \
      const char *s_ = "?";                                           \
      cuGetErrorName(r_, &s_);                                        \
      fprintf(stderr, "%s failed: %s (%d)\n", #call, s_, (int)r_);    \
      return 2;                                                       \
    }                                                                 \
  } while (0)

static int compare(const float *got, const float *x, const float *y, int from, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float want = i < from ? 0.0f : x[i] + y[i];
    if (fabsf(got[i] - want) > 1e-6f * (1.0f + fabsf(want))) {
      if (bad < 5) fprintf(stderr, "element %d: got %g, want %g\n", i, got[i], want);
      bad++;
    }
  }
  return bad;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  size_t bytes = (size_t)n * sizeof(float);
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr dx, dy, dout;
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  srand(12345);
  for (int i = 0; i < n; i++) {
    x[i] = (float)rand() / RAND_MAX - 0.5f;
    y[i] = (float)rand() / RAND_MAX * 3.0f;
  }
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuMemAlloc(&dx, bytes));
  CHECK(cuMemAlloc(&dy, bytes));
  CHECK(cuMemAlloc(&dout, bytes));
  CHECK(cuMemcpyHtoD(dx, x, bytes));
  CHECK(cuMemcpyHtoD(dy, y, bytes));
  load_add();
  if (add_get_num_algos() != 1) {
    fprintf(stderr, "expected 1 algorithm, got %d\n", add_get_num_algos());
    return 3;
  }
  /* Aligned pointers: the divisible-by-16 variant. */
  CHECK(cuMemsetD8(dout, 0, bytes));
  CHECK(add_default(NULL, dx, dy, dout, n));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out, dout, bytes));
  int bad = compare(out, x, y, 0, n);
  /* Pointers one element in: only the variant without hints may run. */
  CHECK(cuMemsetD8(dout, 0, bytes));
  CHECK(add(NULL, dx + 4, dy + 4, dout + 4, n - 1, 0));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(out, dout, bytes));
  bad += compare(out, x, y, 1, n);
  if (add(NULL, dx, dy, dout, n, 7) != CUDA_ERROR_INVALID_VALUE) {
    fprintf(stderr, "an unknown algorithm id was accepted\n");
    bad++;
  }
  unload_add();
  cuMemFree(dx);
  cuMemFree(dy);
  cuMemFree(dout);
  cuDevicePrimaryCtxRelease(dev);
  printf(bad ? "FAILED %d\n" : "OK n=%d\n", bad ? bad : n);
  return bad ? 1 : 0;
}
