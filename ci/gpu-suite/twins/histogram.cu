// nvcc twin of kernels/histogram: the 256-bin histogram of n bytes (read as words), with the
// same algorithm and launch shape (a shared-memory histogram with shared atomics per block over
// a grid-stride share, then one global atomicAdd per non-zero bin per block; 8 blocks of 256
// per SM of the H200, at least 8 words per thread), the same inputs, check and timing.
// Prints `histogram-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <algorithm>
#include <vector>

#include "common.cuh"

constexpr size_t MAX_BLOCKS = 8 * 132;
constexpr int BINS = 256;

__global__ void histogram(const unsigned* __restrict__ words, size_t n, unsigned* bins) {
    __shared__ unsigned counts[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) counts[b] = 0;
    __syncthreads();
    size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned w = words[i];
        for (int shift = 0; shift < 32; shift += 8) atomicAdd(&counts[(w >> shift) & 0xff], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (counts[b] != 0) atomicAdd(&bins[b], counts[b]);
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    size_t words_n = (n + 3) / 4;
    std::vector<unsigned> words(words_n);
    std::vector<unsigned> expected(BINS, 0);
    for (size_t i = 0; i < words_n; ++i) {
        unsigned x = unsigned(i) * 2654435761u;
        unsigned hot = x % 4 == 0 ? 0x40404040u : x;
        words[i] = hot ^ (x >> 16 & 0x0707);
        for (int shift = 0; shift < 32; shift += 8) expected[(words[i] >> shift) & 0xff]++;
    }
    unsigned *dwords, *dbins;
    CHECK(cudaMalloc(&dwords, words_n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dbins, BINS * sizeof(unsigned)));
    CHECK(cudaMemcpy(dwords, words.data(), words_n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dbins, 0, BINS * sizeof(unsigned)));
    unsigned blocks = unsigned(std::clamp<size_t>((words_n + BLOCK * 8 - 1) / (BLOCK * 8), 1, MAX_BLOCKS));
    auto launch = [&] { histogram<<<blocks, BLOCK>>>(dwords, words_n, dbins); };
    launch();
    CHECK(cudaGetLastError());
    std::vector<unsigned> got(BINS);
    CHECK(cudaMemcpy(got.data(), dbins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BINS; ++b)
        if (got[b] != expected[b]) {
            std::printf("histogram-nvcc n=%zu FAIL at bin %d: got %u expected %u\n", n, b, got[b], expected[b]);
            return 1;
        }
    float ms = time_ms(reps, launch);
    report("histogram-nvcc", n, double(words_n) * sizeof(unsigned), ms);
    CHECK(cudaFree(dwords));
    CHECK(cudaFree(dbins));
    return 0;
}
