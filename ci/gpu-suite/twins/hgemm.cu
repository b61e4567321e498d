// nvcc-flags: -lcublas
// nvcc twin of kernels/hgemm: C = A·B for square side x side row-major bf16 A and B (side the
// largest multiple of 128 whose square is at most n, within 128..8192), f32 accumulation and an
// f32 C, the same algorithm as the oxide kernel: blocks of 256 threads each computing a 128 x 128
// tile of C, warp w the 64 x 32 region (w / 4, w % 4); k in steps of 32 through a three-stage
// cp.async pipeline in dynamic shared memory (128 x 32 of A and 32 x 128 of B a stage, each row
// padded by one 16-byte chunk), chunk i of stage s (A's 128 x 5 chunks, then B's 32 x 17) copied
// by thread (s * 1184 + i) % 256 with cp.async.cg (zero-filled outside the matrices, padding
// chunks stored as zeros); two stages filled ahead, then per step: cp.async.wait_group 1,
// __syncthreads, the copies of the step two ahead, then for each k16 four ldmatrix.x4 of A, two
// ldmatrix.x4.trans of B and sixteen mma.sync.m16n8k16 bf16. The same
// inputs, check and timing; then cuBLAS (cublasGemmEx, bf16 in, f32 out, f32 compute) on the same
// matrices as the roof. With HGEMM_VARIANTS=1 it also runs the oxide binary's other variants
// (the same templates: 128 x 256 and 256 x 128 tiles of 64 x 64 warps, steps of 64, four stages),
// each as `hgemm-nvcc[<variant>] n=<n> ...`. Prints `hgemm-cublas n=<n> ...` first and the
// default's `hgemm-nvcc n=<n> (side x side x side, <variant>) <TFLOP/s> TFLOP/s <GB/s> GB/s <ms> ms`
// last (run.sh reads its ms).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_bf16.h>
#ifndef NO_CUBLAS
#include <cublas_v2.h>
#endif

#include "common.cuh"

constexpr int THREADS = 256;
constexpr size_t MAX_SIDE = 8192;

struct alignas(16) Chunk {
    uint32_t w[4];
};

// A variant: block tile BM x BN, steps of BK, warp regions WM x WN (eight of them), STAGES.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_> struct Config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int A_CHUNKS = BK / 8 + 1, B_CHUNKS = BN / 8 + 1;  // a row's chunks, padding included
    static constexpr int STAGE_CHUNKS = BM * A_CHUNKS + BK * B_CHUNKS;
    static_assert((BM / WM) * (BN / WN) == 8, "eight warps of 32: 256 threads");
    struct Stage {
        Chunk a[BM][A_CHUNKS];
        Chunk b[BK][B_CHUNKS];
    };
};

__device__ __forceinline__ uint32_t shared_address(const void* p) {
    return uint32_t(__cvta_generic_to_shared(p));
}

// Copies 16 bytes (the first `bytes` of them from `src`, the rest zero) into `dst`.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
                 "r"(bytes)
                 : "memory");
}

// Thread `tid`'s chunks of the stage of step `t` (chunk c of the stages is thread c % THREADS's).
template <typename C>
__device__ __forceinline__ void fill(typename C::Stage* stages, const __nv_bfloat16* a, const __nv_bfloat16* b, int m, int n,
                                     int k, int m0, int n0, int t, int tid) {
    constexpr int BM = C::BM, BN = C::BN, BK = C::BK, A_CHUNKS = C::A_CHUNKS, B_CHUNKS = C::B_CHUNKS;
    constexpr int STAGE_CHUNKS = C::STAGE_CHUNKS;
    const int k0 = t * BK, stage = t % C::STAGES;
    typename C::Stage& s = stages[stage];
    const int start = stage * STAGE_CHUNKS % THREADS;
    for (int i = (tid + THREADS - start) % THREADS; i < STAGE_CHUNKS; i += THREADS) {
        Chunk* dst;
        const __nv_bfloat16* src = nullptr;
        int avail = 0;
        if (i < BM * A_CHUNKS) {
            int row = i / A_CHUNKS, chunk = i % A_CHUNKS;
            dst = &s.a[row][chunk];
            int col = k0 + 8 * chunk;
            if (chunk < BK / 8 && m0 + row < m && col < k) {
                src = a + size_t(m0 + row) * k + col;
                avail = int(min(size_t(8), size_t(m) * k - (size_t(m0 + row) * k + col)));
            }
        } else {
            int j = i - BM * A_CHUNKS, row = j / B_CHUNKS, chunk = j % B_CHUNKS;
            dst = &s.b[row][chunk];
            int col = n0 + 8 * chunk;
            if (chunk < BN / 8 && k0 + row < k && col < n) {
                src = b + size_t(k0 + row) * n + col;
                avail = int(min(size_t(8), size_t(k) * n - (size_t(k0 + row) * n + col)));
            }
        }
        if (src != nullptr)
            cp_async_16(dst, src, 2 * avail);
        else
            *dst = Chunk{{0, 0, 0, 0}};
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row))
                 : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row))
                 : "memory");
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <typename C>
__global__ void __launch_bounds__(THREADS) hgemm(const __nv_bfloat16* __restrict__ a,
                                                 const __nv_bfloat16* __restrict__ b, float* __restrict__ c,
                                                 int m, int n, int k) {
    constexpr int BM = C::BM, BN = C::BN, BK = C::BK, WM = C::WM, WN = C::WN, STAGES = C::STAGES;
    extern __shared__ Chunk dynamic[];
    typename C::Stage* stages = reinterpret_cast<typename C::Stage*>(dynamic);
    const int tid = threadIdx.x, lane = tid % 32, w = tid / 32;
    const int wm = w / (BN / WN), wn = w % (BN / WN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int steps = (k + BK - 1) / BK;
    float acc[WM / 16][WN / 8][4] = {};
    for (int t = 0; t < STAGES - 1; ++t) fill<C>(stages, a, b, m, n, k, m0, n0, t, tid);
    for (int t = 0; t < steps; ++t) {
        // All but the newest STAGES - 2 groups complete (the oxide pipeline's count).
        if constexpr (STAGES == 2)
            asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        else if constexpr (STAGES == 3)
            asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        else
            asm volatile("cp.async.wait_group 2;\n" ::: "memory");
        __syncthreads();
        fill<C>(stages, a, b, m, n, k, m0, n0, t + STAGES - 1, tid);
        const typename C::Stage& s = stages[t % STAGES];
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            uint32_t fa[WM / 16][4], fb[WN / 8][2];
#pragma unroll
            for (int i = 0; i < WM / 16; ++i) ldmatrix_x4(fa[i], &s.a[wm * WM + 16 * i + lane % 16][2 * kk + lane / 16]);
#pragma unroll
            for (int p = 0; p < WN / 16; ++p) {
                uint32_t r[4];
                ldmatrix_x4_trans(r, &s.b[16 * kk + lane % 16][wn * WN / 8 + 2 * p + lane / 16]);
                fb[2 * p][0] = r[0];
                fb[2 * p][1] = r[1];
                fb[2 * p + 1][0] = r[2];
                fb[2 * p + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < WM / 16; ++i)
#pragma unroll
                for (int j = 0; j < WN / 8; ++j) mma_bf16(acc[i][j], fa[i], fb[j]);
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    const int g = lane / 4, p2 = 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                int row = m0 + wm * WM + 16 * i + g + 8 * (e / 2), col = n0 + wn * WN + 8 * j + p2 + e % 2;
                if (row < m && col < n) c[size_t(row) * n + col] = acc[i][j][e];
            }
}

// One product's matrices on both sides, and how to check and report a run.
struct Problem {
    size_t count, side;
    int reps;
    std::vector<float> af, bf, c;
    __nv_bfloat16 *da, *db;
    float* dc;
    double flops, bytes;

    // Whether C holds A·B at 64 x 64 positions, the corners among them.
    bool check(const char* name) {
        CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t p = 0; p < 64; ++p)
            for (size_t q = 0; q < 64; ++q) {
                size_t r = p * (side - 1) / 63, col = q * (side - 1) / 63;
                double exact = 0.0, magnitude = 0.0;
                for (size_t kk = 0; kk < side; ++kk) {
                    double prod = double(af[r * side + kk]) * double(bf[kk * side + col]);
                    exact += prod;
                    magnitude += std::fabs(prod);
                }
                double bound = 2e-3 * magnitude + 1e-4, got = c[r * side + col];
                if (!(std::fabs(got - exact) <= bound)) {
                    std::printf("%s n=%zu FAIL at (%zu, %zu) of %zu x %zu: got %g expected %g\n", name, count, r, col,
                                side, side, got, exact);
                    return false;
                }
            }
        return true;
    }
};

// Variant `C`: checked on poisoned output, then timed.
template <typename C> static bool run(Problem& pr, const char* name, const char* label) {
    const int s = int(pr.side);
    dim3 grid(unsigned((s + C::BN - 1) / C::BN), unsigned((s + C::BM - 1) / C::BM)), block(THREADS);
    const int smem = C::STAGES * int(sizeof(typename C::Stage));
    CHECK(cudaFuncSetAttribute(hgemm<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    auto launch = [&] { hgemm<C><<<grid, block, smem>>>(pr.da, pr.db, pr.dc, s, s, s); };
    CHECK(cudaMemset(pr.dc, 0xff, pr.c.size() * sizeof(float)));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (!pr.check(name)) return false;
    float ms = time_ms(pr.reps, launch);
    std::printf("%s n=%zu (%zu x %zu x %zu, %s) %.1f TFLOP/s %.1f GB/s %.4f ms\n", name, pr.count, pr.side, pr.side,
                pr.side, label, pr.flops / (ms * 1e-3) / 1e12, pr.bytes / (ms * 1e-3) / 1e9, ms);
    return true;
}

int main(int argc, char** argv) {
    Problem pr;
    parse_args(argc, argv, &pr.count, &pr.reps);
    size_t side = size_t(std::sqrt(double(pr.count))) / 128 * 128;
    side = std::min(std::max<size_t>(side, 128), MAX_SIDE);
    pr.side = side;
    const int s = int(side);
    std::vector<__nv_bfloat16> a(side * side), b(side * side);
    pr.af.resize(side * side);
    pr.bf.resize(side * side);
    pr.c.resize(side * side);
    for (size_t i = 0; i < side * side; ++i) {
        pr.af[i] = float((i * 7 + 3) % 17) / 8.0f - 1.0f;
        pr.bf[i] = float((i * 5 + 1) % 13) / 8.0f - 0.75f;
        a[i] = __float2bfloat16(pr.af[i]);
        b[i] = __float2bfloat16(pr.bf[i]);
    }
    CHECK(cudaMalloc(&pr.da, a.size() * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&pr.db, b.size() * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&pr.dc, pr.c.size() * sizeof(float)));
    CHECK(cudaMemcpy(pr.da, a.data(), a.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pr.db, b.data(), b.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    pr.flops = 2.0 * double(side) * side * side;
    pr.bytes = 2.0 * 2 * side * side + 4.0 * side * side;
#ifndef NO_CUBLAS
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasCreate failed\n");
        return 2;
    }
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B first.
    auto cublas = [&] {
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &one, pr.db, CUDA_R_16BF, s, pr.da, CUDA_R_16BF, s,
                     &zero, pr.dc, CUDA_R_32F, s, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    CHECK(cudaMemset(pr.dc, 0xff, pr.c.size() * sizeof(float)));
    cublas();
    CHECK(cudaGetLastError());
    if (!pr.check("hgemm-cublas")) return 1;
    float cublas_ms = time_ms(pr.reps, cublas);
    std::printf("hgemm-cublas n=%zu (%zu x %zu x %zu) %.1f TFLOP/s %.1f GB/s (cuBLAS)\n", pr.count, side, side, side,
                pr.flops / (cublas_ms * 1e-3) / 1e12, pr.bytes / (cublas_ms * 1e-3) / 1e9);
    cublasDestroy(handle);
#endif
    // The variants (HGEMM_VARIANTS=1), then the default last: run.sh reads the last line's ms.
    const char* all = std::getenv("HGEMM_VARIANTS");
    if (all != nullptr && all[0] == '1') {
        if (!run<Config<128, 256, 32, 64, 64, 3>>(pr, "hgemm-nvcc[128x256x32 w64x64 s3]", "128x256x32 w64x64 s3"))
            return 1;
        if (!run<Config<256, 128, 32, 64, 64, 3>>(pr, "hgemm-nvcc[256x128x32 w64x64 s3]", "256x128x32 w64x64 s3"))
            return 1;
        if (!run<Config<128, 128, 64, 64, 32, 3>>(pr, "hgemm-nvcc[128x128x64 w64x32 s3]", "128x128x64 w64x32 s3"))
            return 1;
        if (!run<Config<128, 128, 32, 64, 32, 4>>(pr, "hgemm-nvcc[128x128x32 w64x32 s4]", "128x128x32 w64x32 s4"))
            return 1;
    }
    if (!run<Config<128, 128, 32, 64, 32, 3>>(pr, "hgemm-nvcc", "128x128x32 w64x32 s3")) return 1;
    CHECK(cudaFree(pr.da));
    CHECK(cudaFree(pr.db));
    CHECK(cudaFree(pr.dc));
    return 0;
}
