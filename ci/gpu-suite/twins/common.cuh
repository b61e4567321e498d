// Shared by the nvcc twins of the oxide kernels: argument parsing, error checks, timing and the
// result line, so that every twin measures the same way as the oxide binaries (one warm-up and
// check launch, then BATCHES batches of launches timed with CUDA events, each batch as many
// launches as last MIN_BATCH_MS; ms is the median batch's time per launch: kernels/bench).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(err_));                                      \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

constexpr unsigned BLOCK = 256;  // the oxide kernels' launch shape: 256 threads, 1 element each
constexpr int DEFAULT_REPS = 10;  // the fewest launches in a timed batch, as kernels/bench's
constexpr int MAX_REPS = 1000;    // the most
constexpr int BATCHES = 7;        // batches timed; the median is reported
constexpr float MIN_BATCH_MS = 2.0f;

// `prog [N] [REPS]`, N defaulting to 2^28.
inline void parse_args(int argc, char** argv, size_t* n, int* reps) {
    *n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t(1) << 28);
    *reps = argc > 2 ? std::atoi(argv[2]) : DEFAULT_REPS;
    if (*n == 0 || *n >= (size_t(1) << 32) || *reps <= 0) {
        std::fprintf(stderr, "usage: %s [N < 2^32] [REPS > 0]\n", argv[0]);
        std::exit(2);
    }
}

inline unsigned grid_for(size_t n) { return unsigned((n + BLOCK - 1) / BLOCK); }

// Milliseconds per call of `launch`, over `reps` calls timed with CUDA events.
template <typename F> float time_batch(int reps, F launch) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms / reps;
}

// Milliseconds per call of `launch`: the median of BATCHES batches, each of as many calls as
// last MIN_BATCH_MS (estimated from a first batch of `min_reps`), as kernels/bench times.
template <typename F> float time_ms(int min_reps, F launch) {
    float estimate = time_batch(min_reps, launch);
    float wanted = std::ceil(MIN_BATCH_MS / std::max(estimate, 1e-6f));
    int reps = std::max(min_reps, std::min(MAX_REPS, int(std::min(wanted, float(MAX_REPS)))));
    float per[BATCHES];
    for (int b = 0; b < BATCHES; ++b) per[b] = time_batch(reps, launch);
    std::sort(per, per + BATCHES);
    return per[BATCHES / 2];
}

// `<name> n=<n> <GB/s> GB/s <ms> ms`, the line ci/gpu-suite/run.sh reads.
inline void report(const char* name, size_t n, double bytes, float ms) {
    std::printf("%s n=%zu %.1f GB/s %.4f ms\n", name, n, bytes / (ms * 1e-3) / 1e9, ms);
}
