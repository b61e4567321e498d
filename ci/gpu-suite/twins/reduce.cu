// nvcc twin of kernels/reduce: the sum of n u32 values as a u64, with the same algorithm and
// launch shape (grid-stride accumulation, warp shuffles, the warps' totals through shared
// memory, one atomicAdd per block; 8 blocks of 256 per SM of the H200, at least 8 elements per
// thread), the same inputs, check and timing. Prints `reduce-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <algorithm>
#include <vector>

#include "common.cuh"

constexpr size_t MAX_BLOCKS = 8 * 132;

__global__ void block_sum(const unsigned* __restrict__ input, size_t n,
                          unsigned long long* total) {
    __shared__ unsigned long long warp_totals[32];
    size_t stride = size_t(gridDim.x) * blockDim.x;
    unsigned long long acc = 0;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += input[i];
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(~0u, acc, offset);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (lane == 0) warp_totals[warp] = acc;
    __syncthreads();
    acc = lane < warps ? warp_totals[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(~0u, acc, offset);
    if (threadIdx.x == 0) atomicAdd(total, acc);
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    std::vector<unsigned> input(n);
    unsigned long long expected = 0;
    for (size_t i = 0; i < n; ++i) {
        input[i] = (unsigned(i) * 2654435761u) >> 8;
        expected += input[i];
    }
    unsigned* dinput;
    unsigned long long* dtotal;
    CHECK(cudaMalloc(&dinput, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dtotal, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(dinput, input.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dtotal, 0, sizeof(unsigned long long)));
    unsigned blocks = unsigned(std::clamp<size_t>((n + BLOCK * 8 - 1) / (BLOCK * 8), 1, MAX_BLOCKS));
    auto launch = [&] { block_sum<<<blocks, BLOCK>>>(dinput, n, dtotal); };
    launch();
    CHECK(cudaGetLastError());
    unsigned long long got = 0;
    CHECK(cudaMemcpy(&got, dtotal, sizeof(got), cudaMemcpyDeviceToHost));
    if (got != expected) {
        std::printf("reduce-nvcc n=%zu FAIL: got %llu expected %llu\n", n, got, expected);
        return 1;
    }
    float ms = time_ms(reps, launch);
    report("reduce-nvcc", n, double(n) * sizeof(unsigned), ms);
    CHECK(cudaFree(dinput));
    CHECK(cudaFree(dtotal));
    return 0;
}
