// nvcc twin of kernels/softmax: the softmax of every row of a rows x 1024 f32 matrix
// (rows = n / 1024, at least 1), one warp per row, blocks of 256: each lane's maximum and sum of
// expf over its columns (lane, lane + 32, ...), combined by xor shuffles, then each lane writes
// expf(x - max) / sum; the same input, check (1e-6 absolute against a double-precision CPU
// softmax) and timing. Prints `softmax-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <cmath>
#include <vector>

#include "common.cuh"

constexpr int WIDTH = 1024;
constexpr unsigned SOFTMAX_BLOCK = 256;

__global__ void softmax(const float* __restrict__ in, float* __restrict__ out, size_t rows) {
    size_t row = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    unsigned lane = threadIdx.x % 32;
    bool has_row = row < rows;
    const float* x = in + row * WIDTH;
    float max = -INFINITY;
    if (has_row)
        for (int c = lane; c < WIDTH; c += 32) max = fmaxf(max, x[c]);
    for (int o = 16; o > 0; o /= 2) max = fmaxf(max, __shfl_xor_sync(~0u, max, o));
    float sum = 0.0f;
    if (has_row)
        for (int c = lane; c < WIDTH; c += 32) sum += expf(x[c] - max);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(~0u, sum, o);
    if (has_row)
        for (int c = lane; c < WIDTH; c += 32) out[row * WIDTH + c] = expf(x[c] - max) / sum;
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    size_t rows = n / WIDTH > 0 ? n / WIDTH : 1, count = rows * WIDTH;
    std::vector<float> in(count), out(count);
    for (size_t i = 0; i < count; ++i) in[i] = float((unsigned(i) * 2654435761u) >> 20) / 256.0f - 8.0f;
    float *din, *dout;
    CHECK(cudaMalloc(&din, count * sizeof(float)));
    CHECK(cudaMalloc(&dout, count * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    unsigned blocks = unsigned((rows * 32 + SOFTMAX_BLOCK - 1) / SOFTMAX_BLOCK);
    auto launch = [&] { softmax<<<blocks, SOFTMAX_BLOCK>>>(din, dout, rows); };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < rows; ++r) {
        const float* x = &in[r * WIDTH];
        float max = -INFINITY;
        for (int c = 0; c < WIDTH; ++c) max = std::fmax(max, x[c]);
        double sum = 0;
        for (int c = 0; c < WIDTH; ++c) sum += std::exp(double(x[c] - max));
        for (int c = 0; c < WIDTH; ++c) {
            float expected = float(std::exp(double(x[c] - max)) / sum);
            if (std::fabs(out[r * WIDTH + c] - expected) > 1e-6f) {
                std::printf("softmax-nvcc n=%zu FAIL at (%zu, %d): got %g expected %g\n", n, r, c,
                            out[r * WIDTH + c], expected);
                return 1;
            }
        }
    }
    float ms = time_ms(reps, launch);
    report("softmax-nvcc", n, 2.0 * count * sizeof(float), ms);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    return 0;
}
