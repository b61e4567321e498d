// nvcc twin of kernels/scan: the inclusive prefix sum of n u32 (wrapping) in the same three
// passes and shapes (block scans of 1024 by warp shuffles and the warps' totals in shared
// memory, the last thread storing the block's total; one block scanning the totals in rounds of
// 1024 with a carry; the carry added to every element), the same input, check and timing.
// Prints `scan-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <vector>

#include "common.cuh"

constexpr unsigned SCAN_BLOCK = 1024;

// Inclusive scan of the block's values (warp shuffles, then the warps' totals in shared memory).
__device__ unsigned block_scan(unsigned v) {
    __shared__ unsigned warp_totals[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 1; offset < 32; offset *= 2) {
        unsigned up = __shfl_up_sync(~0u, v, offset);
        if (lane >= offset) v += up;
    }
    __syncthreads();
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    unsigned total = lane < blockDim.x / 32 ? warp_totals[lane] : 0;
    for (int offset = 1; offset < 32; offset *= 2) {
        unsigned up = __shfl_up_sync(~0u, total, offset);
        if (lane >= offset) total += up;
    }
    unsigned before = __shfl_sync(~0u, total, (warp + 31) % 32);
    return warp > 0 ? before + v : v;
}

__global__ void scan_blocks(const unsigned* __restrict__ input, unsigned* out, unsigned* totals, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    unsigned scanned = block_scan(i < n ? input[i] : 0);
    if (threadIdx.x == blockDim.x - 1) totals[blockIdx.x] = scanned;
    if (i < n) out[i] = scanned;
}

__global__ void scan_totals(unsigned* totals, size_t count) {
    __shared__ unsigned round_total;
    unsigned carry = 0;
    for (size_t base = 0; base < count; base += blockDim.x) {
        size_t i = base + threadIdx.x;
        unsigned scanned = block_scan(i < count ? totals[i] : 0) + carry;
        if (i < count) totals[i] = scanned;
        if (threadIdx.x == blockDim.x - 1) round_total = scanned;
        __syncthreads();
        carry = round_total;
        __syncthreads();
    }
}

__global__ void add_carries(const unsigned* totals, unsigned* out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n && blockIdx.x > 0) out[i] += totals[blockIdx.x - 1];
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    std::vector<unsigned> input(n), expected(n), got(n);
    unsigned acc = 0;
    for (size_t i = 0; i < n; ++i) {
        input[i] = ((unsigned(i) * 2654435761u) >> 20) ^ (unsigned(i) & 7);
        acc += input[i];
        expected[i] = acc;
    }
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    unsigned *dinput, *dout, *dtotals;
    CHECK(cudaMalloc(&dinput, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dout, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dtotals, blocks * sizeof(unsigned)));
    CHECK(cudaMemcpy(dinput, input.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    auto launch = [&] {
        scan_blocks<<<unsigned(blocks), SCAN_BLOCK>>>(dinput, dout, dtotals, n);
        scan_totals<<<1, SCAN_BLOCK>>>(dtotals, blocks);
        add_carries<<<unsigned(blocks), SCAN_BLOCK>>>(dtotals, dout, n);
    };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (got[i] != expected[i]) {
            std::printf("scan-nvcc n=%zu FAIL at %zu: got %u expected %u\n", n, i, got[i], expected[i]);
            return 1;
        }
    float ms = time_ms(reps, launch);
    report("scan-nvcc", n, 2.0 * n * sizeof(unsigned), ms);
    CHECK(cudaFree(dinput));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dtotals));
    return 0;
}
