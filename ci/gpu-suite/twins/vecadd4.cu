// nvcc twin of kernels/vecadd4: c = a + b over n f32 with float4 loads and stores in a
// grid-stride loop over chunks of four, the last n % 4 elements by the thread whose turn they
// are; 8 blocks of 512 per SM of the H200 (132 SMs), fewer for small inputs; same inputs, exact
// check and timing. Prints `vecadd4-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <algorithm>
#include <cstring>
#include <vector>

#include "common.cuh"

constexpr unsigned BLOCK4 = 512;
constexpr size_t MAX_BLOCKS = 8 * 132;

__global__ void vecadd4(const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ c, size_t n) {
    size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t chunks = n / 4;
    for (size_t q = t; q < chunks; q += stride) {
        float4 x = reinterpret_cast<const float4*>(a)[q];
        float4 y = reinterpret_cast<const float4*>(b)[q];
        reinterpret_cast<float4*>(c)[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    if (n % 4 != 0 && chunks >= t && (chunks - t) % stride == 0)
        for (size_t i = chunks * 4; i < n; ++i) c[i] = a[i] + b[i];
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
    unsigned blocks = unsigned(std::clamp<size_t>((n + 4 * BLOCK4 - 1) / (4 * BLOCK4), 1, MAX_BLOCKS));
    auto launch = [&] { vecadd4<<<blocks, BLOCK4>>>(da, db, dc, n); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        float expected = a[i] + b[i];
        if (std::memcmp(&c[i], &expected, sizeof(float)) != 0) {
            std::printf("vecadd4-nvcc n=%zu FAIL at %zu: got %g expected %g\n", n, i, c[i], expected);
            return 1;
        }
    }
    float ms = time_ms(reps, launch);
    report("vecadd4-nvcc", n, 3.0 * n * sizeof(float), ms);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    return 0;
}
