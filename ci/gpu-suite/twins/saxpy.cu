// nvcc twin of kernels/saxpy: y = a * x + y_in over n f32, block 256, one element per thread,
// same inputs and check (fused or unfused rounding both pass), same timing.
// Prints `saxpy-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <cmath>
#include <cstring>
#include <vector>

#include "common.cuh"

constexpr float A = 1.75f;

__global__ void saxpy(float a, const float* x, const float* y_in, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y_in[i];
}

static bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    std::vector<float> x(n), y_in(n), y(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = float(i % 10007) * 0.001f;
        y_in[i] = float(i % 1009) * 0.5f - 250.0f;
    }
    float *dx, *dy_in, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy_in, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy_in, y_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dy, 0, n * sizeof(float)));

    auto launch = [&] { saxpy<<<grid_for(n), BLOCK>>>(A, dx, dy_in, dy, unsigned(n)); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        volatile float product = A * x[i]; // volatile: keep the unfused rounding on the host
        float unfused = product + y_in[i];
        float fused = std::fmaf(A, x[i], y_in[i]);
        if (!same_bits(y[i], fused) && !same_bits(y[i], unfused)) {
            std::printf("saxpy-nvcc n=%zu FAIL at %zu: got %g expected %g\n", n, i, y[i], fused);
            return 1;
        }
    }
    float ms = time_ms(reps, launch);
    report("saxpy-nvcc", n, 3.0 * n * sizeof(float), ms);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy_in));
    CHECK(cudaFree(dy));
    return 0;
}
