// nvcc twin of kernels/transpose: the transpose of a side x side f32 matrix (side the largest
// multiple of 32 whose square is at most n), by 32 x 32 tiles through a padded shared tile
// (32 x 33), blocks of 32 x 8 threads each writing four rows: CUDA's classic coalesced
// transpose, the same input, check and timing. Prints `transpose-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common.cuh"

constexpr int TILE = 32, ROWS = 8;

// The block owning output tile (y, x) reads input tile (x, y), as the oxide kernel does.
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int side) {
    __shared__ float tile[TILE][TILE + 1];
    int in_row0 = blockIdx.x * TILE, in_col0 = blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int row = in_row0 + r, col = in_col0 + threadIdx.x;
        tile[r][threadIdx.x] = row < side && col < side ? in[size_t(row) * side + col] : 0.0f;
    }
    __syncthreads();
    int out_row0 = blockIdx.y * TILE, out_col0 = blockIdx.x * TILE;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int row = out_row0 + r, col = out_col0 + threadIdx.x;
        if (row < side && col < side) out[size_t(row) * side + col] = tile[threadIdx.x][r];
    }
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    size_t side = std::max<size_t>(size_t(std::sqrt(double(n))) / TILE * TILE, TILE);
    while ((side + TILE) * (side + TILE) <= n) side += TILE;
    while (side > TILE && side * side > n) side -= TILE;
    size_t count = side * side;
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = float(i % 100003);
    float *din, *dout;
    CHECK(cudaMalloc(&din, count * sizeof(float)));
    CHECK(cudaMalloc(&dout, count * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    dim3 grid(unsigned(side / TILE), unsigned(side / TILE)), block(TILE, ROWS);
    auto launch = [&] { transpose<<<grid, block>>>(din, dout, int(side)); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < side; ++r)
        for (size_t c = 0; c < side; ++c)
            if (out[r * side + c] != in[c * side + r]) {
                std::printf("transpose-nvcc n=%zu FAIL at (%zu, %zu)\n", n, r, c);
                return 1;
            }
    float ms = time_ms(reps, launch);
    report("transpose-nvcc", n, 2.0 * count * sizeof(float), ms);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    return 0;
}
