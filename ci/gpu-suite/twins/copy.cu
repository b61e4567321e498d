// The bandwidth roof: cudaMemcpy device-to-device of n f32 (default 2^28), counting the bytes
// read and written (2 * 4 * n), timed like the kernels. Prints `copy-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include "common.cuh"

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    float *src, *dst;
    CHECK(cudaMalloc(&src, n * sizeof(float)));
    CHECK(cudaMalloc(&dst, n * sizeof(float)));
    CHECK(cudaMemset(src, 0, n * sizeof(float)));
    auto copy = [&] { CHECK(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice)); };
    copy(); // warm-up
    CHECK(cudaDeviceSynchronize());
    float ms = time_ms(reps, copy);
    report("copy-nvcc", n, 2.0 * n * sizeof(float), ms);
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    return 0;
}
