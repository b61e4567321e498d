// nvcc twin of kernels/vecadd: c = a + b over n f32, block 256, one element per thread, same
// inputs, same exact check, same timing. Prints `vecadd-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <cstring>
#include <vector>

#include "common.cuh"

__global__ void vecadd(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    std::vector<float> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = float(i % 4096) * 0.5f;
        b[i] = float((i * 7) % 1000) * 0.25f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0, n * sizeof(float)));

    auto launch = [&] { vecadd<<<grid_for(n), BLOCK>>>(da, db, dc, unsigned(n)); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        float expected = a[i] + b[i];
        if (std::memcmp(&c[i], &expected, sizeof(float)) != 0) {
            std::printf("vecadd-nvcc n=%zu FAIL at %zu: got %g expected %g\n", n, i, c[i], expected);
            return 1;
        }
    }
    float ms = time_ms(reps, launch);
    report("vecadd-nvcc", n, 3.0 * n * sizeof(float), ms);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    return 0;
}
