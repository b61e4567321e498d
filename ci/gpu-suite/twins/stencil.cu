// nvcc twin of kernels/stencil: one step of the 2-D 5-point stencil over a side x side f32 grid
// (side the largest multiple of 16 whose square is at most n; zero outside), blocks of 16 x 16
// loading their cells and a one-cell halo into an 18 x 18 shared tile (thread (x, y) loading
// (y + 16i, x + 16j), as the oxide kernel's tile ownership gives), then one cell per thread;
// rounded operation by operation (no FMA) as the oxide kernel is strict_float, same input, exact check and
// timing. Prints `stencil-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <cmath>
#include <cstring>
#include <vector>

#include "common.cuh"

constexpr int T = 16;
constexpr float CENTER = 0.5f, SIDE = 0.125f;

// No contraction on the device (the oxide kernel is strict_float): the _rn intrinsics.
__device__ inline float step(float c, float n, float s, float w, float e) {
    return __fadd_rn(__fmul_rn(CENTER, c), __fmul_rn(SIDE, __fadd_rn(__fadd_rn(__fadd_rn(n, s), w), e)));
}

// The host's reference (x86-64 without FMA: each operation rounded).
static float step_host(float c, float n, float s, float w, float e) {
    volatile float center = CENTER * c, sum = ((n + s) + w) + e, side = SIDE * sum;
    return center + side;
}

__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int side) {
    __shared__ float tile[T + 2][T + 2];
    for (int r = threadIdx.y; r < T + 2; r += T)
        for (int c = threadIdx.x; c < T + 2; c += T) {
            int row = blockIdx.y * T + r - 1, col = blockIdx.x * T + c - 1;
            tile[r][c] = row >= 0 && col >= 0 && row < side && col < side ? in[size_t(row) * side + col] : 0.0f;
        }
    __syncthreads();
    int x = threadIdx.x + 1, y = threadIdx.y + 1;
    float v = step(tile[y][x], tile[y - 1][x], tile[y + 1][x], tile[y][x - 1], tile[y][x + 1]);
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    if (row < side && col < side) out[size_t(row) * side + col] = v;
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    size_t side = size_t(std::sqrt(double(n))) / T * T;
    while ((side + T) * (side + T) <= n) side += T;
    while (side > T && side * side > n) side -= T;
    if (side < T) side = T;
    size_t count = side * side;
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = float((unsigned(i) * 2654435761u) >> 16) / 64.0f;
    float *din, *dout;
    CHECK(cudaMalloc(&din, count * sizeof(float)));
    CHECK(cudaMalloc(&dout, count * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    dim3 grid(unsigned(side / T), unsigned(side / T)), block(T, T);
    auto launch = [&] { stencil<<<grid, block>>>(din, dout, int(side)); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, count * sizeof(float), cudaMemcpyDeviceToHost));
    auto at = [&](long r, long c) { return r < 0 || c < 0 || r >= long(side) || c >= long(side) ? 0.0f : in[r * side + c]; };
    for (size_t i = 0; i < count; ++i) {
        long r = long(i / side), c = long(i % side);
        float expected = step_host(at(r, c), at(r - 1, c), at(r + 1, c), at(r, c - 1), at(r, c + 1));
        if (std::memcmp(&out[i], &expected, sizeof(float)) != 0) {
            std::printf("stencil-nvcc n=%zu FAIL at (%ld, %ld): got %g expected %g\n", n, r, c, out[i], expected);
            return 1;
        }
    }
    float ms = time_ms(reps, launch);
    report("stencil-nvcc", n, 2.0 * count * sizeof(float), ms);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    return 0;
}
