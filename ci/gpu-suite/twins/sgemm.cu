// nvcc twin of kernels/sgemm: C = A·B for square side x side row-major f32 matrices (side the
// largest multiple of 64 whose square is at most n, at most 4096), blocks of 16 x 16 threads each
// computing a 64 x 64 tile of C through 64 x 16 tiles of A and 16 x 64 tiles of B in shared
// memory (thread (x, y) loading As[y + 16i][x] and Bs[y][x + 16j], as the oxide kernel's tile
// ownership gives), each thread accumulating the 4 x 4 elements (y + 16i, x + 16j) of the tile
// in registers; FMA contraction as nvcc's default (the oxide kernel is not strict_float). The
// same input, the same sampled check (64 x 64 positions, the corners among them, against an f64
// dot product) and timing. Prints `sgemm-nvcc n=<n> <GB/s> GB/s <ms> ms` (3 side^2 floats moved).
#include <algorithm>
#include <cmath>
#include <vector>

#include "common.cuh"

constexpr int TILE = 64, BK = 16, T = 16, PER = TILE / T;
constexpr size_t MAX_SIDE = 4096;

__global__ void sgemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                      int side) {
    __shared__ float As[TILE][BK];
    __shared__ float Bs[BK][TILE];
    const int x = threadIdx.x, y = threadIdx.y;
    const size_t row0 = size_t(blockIdx.y) * TILE, col0 = size_t(blockIdx.x) * TILE;
    float acc[PER][PER];
#pragma unroll
    for (int i = 0; i < PER; ++i)
#pragma unroll
        for (int j = 0; j < PER; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < side; k0 += BK) {
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            size_t row = row0 + y + T * i;
            int k = k0 + x;
            As[y + T * i][x] = row < size_t(side) && k < side ? a[row * side + k] : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            int k = k0 + y;
            size_t col = col0 + x + T * j;
            Bs[y][x + T * j] = k < side && col < size_t(side) ? b[size_t(k) * side + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float av[PER], bv[PER];
#pragma unroll
            for (int i = 0; i < PER; ++i) av[i] = As[y + T * i][k];
#pragma unroll
            for (int j = 0; j < PER; ++j) bv[j] = Bs[k][x + T * j];
#pragma unroll
            for (int i = 0; i < PER; ++i)
#pragma unroll
                for (int j = 0; j < PER; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < PER; ++i)
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            size_t row = row0 + y + T * i, col = col0 + x + T * j;
            if (row < size_t(side) && col < size_t(side)) c[row * side + col] = acc[i][j];
        }
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    size_t side = size_t(std::sqrt(double(n))) / TILE * TILE;
    while ((side + TILE) * (side + TILE) <= n) side += TILE;
    while (side > TILE && side * side > n) side -= TILE;
    side = std::min(std::max<size_t>(side, TILE), MAX_SIDE);
    size_t count = side * side;
    std::vector<float> a(count), b(count), c(count);
    for (size_t i = 0; i < count; ++i) {
        a[i] = float((i * 7 + 3) % 17) / 8.0f - 1.0f;
        b[i] = float((i * 5 + 1) % 13) / 4.0f - 1.5f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, count * sizeof(float)));
    CHECK(cudaMalloc(&db, count * sizeof(float)));
    CHECK(cudaMalloc(&dc, count * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0, count * sizeof(float)));
    dim3 grid(unsigned(side / TILE), unsigned(side / TILE)), block(T, T);
    auto launch = [&] { sgemm<<<grid, block>>>(da, db, dc, int(side)); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, count * sizeof(float), cudaMemcpyDeviceToHost));
    // 64 x 64 positions p * (side - 1) / 63: the corners among them.
    for (size_t p = 0; p < 64; ++p)
        for (size_t q = 0; q < 64; ++q) {
            size_t r = p * (side - 1) / 63, col = q * (side - 1) / 63;
            double exact = 0.0, magnitude = 0.0;
            for (size_t k = 0; k < side; ++k) {
                double prod = double(a[r * side + k]) * double(b[k * side + col]);
                exact += prod;
                magnitude += std::fabs(prod);
            }
            double bound = 1e-3 * magnitude + 1e-5, got = c[r * side + col];
            if (!(std::fabs(got - exact) <= bound)) {
                std::printf("sgemm-nvcc n=%zu FAIL at (%zu, %zu) of %zu x %zu: got %g expected %g\n", n, r,
                            col, side, side, got, exact);
                return 1;
            }
        }
    float ms = time_ms(reps, launch);
    report("sgemm-nvcc", n, 3.0 * count * sizeof(float), ms);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    return 0;
}
