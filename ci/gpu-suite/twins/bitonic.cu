// nvcc twin of kernels/bitonic: a bitonic sort of the largest power of two (at most 2^24) of
// u32 keys at most N, one launch per compare-exchange step (k, d), one thread per pair
// (lo = p with a zero bit inserted at d, hi = lo + d), ascending where lo & k is 0; blocks of
// 256; the same keys, check (against std::sort) and timing (per sort). Prints
// `bitonic-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <algorithm>
#include <vector>

#include "common.cuh"

__global__ void bitonic_step(unsigned* __restrict__ keys, size_t n, size_t d, unsigned k) {
    size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t lo = ((p & ~(d - 1)) << 1) | (p & (d - 1)), hi = lo + d;
    if (hi >= n) return;
    unsigned a = keys[lo], b = keys[hi];
    bool ascending = (lo & k) == 0;
    if ((a > b) == ascending) {
        keys[lo] = b;
        keys[hi] = a;
    }
}

static void sort(unsigned* keys, size_t n) {
    unsigned grid = grid_for(std::max<size_t>(n / 2, 1));
    for (size_t k = 2; k <= n; k <<= 1)
        for (size_t d = k >> 1; d > 0; d >>= 1) bitonic_step<<<grid, BLOCK>>>(keys, n, d, unsigned(k));
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    int log2 = 1;
    while (log2 < 24 && (size_t(1) << (log2 + 1)) <= n) ++log2;
    size_t count = size_t(1) << log2;
    std::vector<unsigned> in(count), out(count);
    unsigned state = 0x2545f491u;
    for (size_t i = 0; i < count; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        in[i] = i % 7 == 0 ? state % 1000 : state;
    }
    unsigned *dkeys, *dwork;
    CHECK(cudaMalloc(&dkeys, count * sizeof(unsigned)));
    CHECK(cudaMalloc(&dwork, count * sizeof(unsigned)));
    CHECK(cudaMemcpy(dkeys, in.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dwork, in.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
    sort(dkeys, count);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dkeys, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned> expected = in;
    std::sort(expected.begin(), expected.end());
    for (size_t i = 0; i < count; ++i)
        if (out[i] != expected[i]) {
            std::printf("bitonic-nvcc n=%zu FAIL at %zu\n", n, i);
            return 1;
        }
    size_t steps = size_t(log2) * (log2 + 1) / 2;
    float ms = time_ms(reps, [&] { sort(dwork, count); });
    report("bitonic-nvcc", n, 2.0 * count * sizeof(unsigned) * steps, ms);
    CHECK(cudaFree(dkeys));
    CHECK(cudaFree(dwork));
    return 0;
}
