// Design probe for hgemm (issue 21): which mma.sync GEMM structure reaches 400 TFLOP/s at
// 8192^3 on the H200, before the oxide kernel and its twin adopt it. Variants over: block tile,
// warp tile, k step, stages, XOR-swizzled tiles (no padding) and a grouped block order. Each
// thread's chunks of a stage are fixed (a stage is a multiple of the block's threads), so their
// shared offsets and global offsets are computed once and only k advances per step.
// nvcc -O3 -arch=sm_90 -lcublas design.cu -I../../gpu-suite/twins
#include <cstdint>
#include <cstdio>
#include <vector>

#ifndef NO_CUBLAS
#include <cublas_v2.h>
#endif
#include <cuda_bf16.h>

#include "common.cuh"

__device__ __forceinline__ uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// The chunk of row r's chunk c in a tile of C chunks a row: conflict-free for ldmatrix's eight
// rows at one chunk column and for 16-byte stores along a row.
template <int C> __device__ __forceinline__ int swz(int r, int c) {
    if constexpr (C >= 8)
        return c ^ (r & 7);
    else
        return c ^ ((r / (8 / C)) & (C - 1));
}

template <int BM_, int BN_, int BK_, int WM_, int WN_, int S_, int GROUP_> struct Cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, S = S_, GROUP = GROUP_;
    static constexpr int WARPS = (BM / WM) * (BN / WN), T = WARPS * 32;
    static constexpr int CA = BK / 8, CB = BN / 8;  // chunks a row
    static constexpr int A_CH = BM * CA, B_CH = BK * CB;
    static_assert(A_CH % T == 0 && B_CH % T == 0, "whole chunks a thread");
    static constexpr int STAGE = (A_CH + B_CH) * 16;
};

template <typename C>
__global__ void __launch_bounds__(C::T) gemm(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                                             float* __restrict__ c, int m, int n, int k) {
    constexpr int BM = C::BM, BN = C::BN, BK = C::BK, WM = C::WM, WN = C::WN, S = C::S, T = C::T;
    constexpr int CA = C::CA, CB = C::CB, AJ = C::A_CH / T, BJ = C::B_CH / T;
    extern __shared__ __align__(128) uint8_t sm[];
    const int tid = threadIdx.x, lane = tid % 32, w = tid / 32;
    const int wm = w / (BN / WN), wn = w % (BN / WN);
    // Grouped order: GROUP block rows walk the columns together (L2 reuse of B).
    int bx = blockIdx.x, by = blockIdx.y;
    if constexpr (C::GROUP > 1) {
        const int gx = gridDim.x, id = blockIdx.y * gx + blockIdx.x;
        const int per = C::GROUP * gx, g = id / per, first = g * C::GROUP;
        const int rows = min(int(gridDim.y) - first, C::GROUP);
        by = first + (id % per) % rows;
        bx = (id % per) / rows;
    }
    const int m0 = by * BM, n0 = bx * BN;
    // This thread's chunks: shared offsets within a stage, global element offsets at k0 = 0.
    uint32_t a_dst[AJ], b_dst[BJ];
    const __nv_bfloat16* a_src[AJ];
    const __nv_bfloat16* b_src[BJ];
#pragma unroll
    for (int j = 0; j < AJ; ++j) {
        int i = tid + j * T, r = i / CA, ch = i % CA;
        a_dst[j] = (r * CA + swz<CA>(r, ch)) * 16;
        a_src[j] = a + size_t(m0 + r) * k + 8 * ch;
    }
#pragma unroll
    for (int j = 0; j < BJ; ++j) {
        int i = tid + j * T, r = i / CB, ch = i % CB;
        b_dst[j] = C::A_CH * 16 + (r * CB + swz<CB>(r, ch)) * 16;
        b_src[j] = b + size_t(r) * n + n0 + 8 * ch;
    }
    const uint32_t base = smem(sm);
    const int steps = k / BK;
    auto fill = [&](int t) {
        if (t < steps) {
            const uint32_t st = base + (t % S) * C::STAGE;
#pragma unroll
            for (int j = 0; j < AJ; ++j)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(st + a_dst[j]), "l"(a_src[j] + t * BK));
#pragma unroll
            for (int j = 0; j < BJ; ++j)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(st + b_dst[j]),
                             "l"(b_src[j] + size_t(t) * BK * n));
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    };
    float acc[WM / 16][WN / 8][4] = {};
#pragma unroll
    for (int t = 0; t < S - 1; ++t) fill(t);
    // ldmatrix rows of this lane: A's row in the warp tile and B's k row.
    for (int t = 0; t < steps; ++t) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 2) : "memory");
        __syncthreads();
        fill(t + S - 1);
        const uint32_t st = base + (t % S) * C::STAGE;
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            uint32_t fa[WM / 16][4], fb[WN / 8][2];
#pragma unroll
            for (int i = 0; i < WM / 16; ++i) {
                int r = wm * WM + 16 * i + lane % 16, ch = 2 * kk + lane / 16;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(fa[i][0]), "=r"(fa[i][1]), "=r"(fa[i][2]), "=r"(fa[i][3])
                             : "r"(st + (r * CA + swz<CA>(r, ch)) * 16));
            }
#pragma unroll
            for (int p = 0; p < WN / 16; ++p) {
                int r = 16 * kk + lane % 16, ch = wn * WN / 8 + 2 * p + lane / 16;
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(fb[2 * p][0]), "=r"(fb[2 * p][1]), "=r"(fb[2 * p + 1][0]), "=r"(fb[2 * p + 1][1])
                             : "r"(st + C::A_CH * 16 + (r * CB + swz<CB>(r, ch)) * 16));
            }
#pragma unroll
            for (int i = 0; i < WM / 16; ++i)
#pragma unroll
                for (int j = 0; j < WN / 8; ++j)
                    asm volatile(
                        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                        "{%0,%1,%2,%3};\n"
                        : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                        : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]), "r"(fa[i][3]), "r"(fb[j][0]), "r"(fb[j][1]));
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    const int g = lane / 4, p2 = 2 * (lane % 4);
#pragma unroll
    for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int row = m0 + wm * WM + 16 * i + g + 8 * h, col = n0 + wn * WN + 8 * j + p2;
                *reinterpret_cast<float2*>(&c[size_t(row) * n + col]) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
            }
}

struct P {
    int s;
    __nv_bfloat16 *a, *b;
    float* c;
    std::vector<float> af, bf, out;
    bool check(const char* name) {
        CHECK(cudaMemcpy(out.data(), c, out.size() * 4, cudaMemcpyDeviceToHost));
        for (int p = 0; p < 24; ++p)
            for (int q = 0; q < 24; ++q) {
                size_t r = size_t(p) * (s - 1) / 23, col = size_t(q) * (s - 1) / 23;
                double e = 0, mag = 0;
                for (int kk = 0; kk < s; ++kk) {
                    double x = double(af[r * s + kk]) * bf[size_t(kk) * s + col];
                    e += x;
                    mag += std::fabs(x);
                }
                if (!(std::fabs(out[r * s + col] - e) <= 2e-3 * mag + 1e-4)) {
                    std::printf("%s FAIL at (%zu,%zu): %g vs %g\n", name, r, col, out[r * s + col], e);
                    return false;
                }
            }
        return true;
    }
};

template <typename C> void run(P& p, const char* name) {
    const int smem_bytes = C::S * C::STAGE;
    auto f = gemm<C>;
    CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    cudaFuncAttributes at;
    CHECK(cudaFuncGetAttributes(&at, f));
    dim3 grid(p.s / C::BN, p.s / C::BM);
    auto launch = [&] { f<<<grid, C::T, smem_bytes>>>(p.a, p.b, p.c, p.s, p.s, p.s); };
    CHECK(cudaMemset(p.c, 0xff, p.out.size() * 4));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    bool ok = p.check(name);
    float ms = time_ms(5, launch);
    std::printf("%-34s %s %6.1f TFLOP/s  regs %3d smem %6d  %.3f ms\n", name, ok ? "ok  " : "FAIL",
                2.0 * p.s * double(p.s) * p.s / (ms * 1e-3) / 1e12, at.numRegs, smem_bytes, ms);
}

int main(int argc, char** argv) {
    P p;
    p.s = argc > 1 ? std::atoi(argv[1]) : 8192;
    size_t nn = size_t(p.s) * p.s;
    std::vector<__nv_bfloat16> ha(nn), hb(nn);
    p.af.resize(nn), p.bf.resize(nn), p.out.resize(nn);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < nn; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ha[i] = __float2bfloat16(float(int(x % 17)) / 8.0f - 1.0f);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hb[i] = __float2bfloat16(float(int(x % 13)) / 8.0f - 0.75f);
        p.af[i] = __bfloat162float(ha[i]), p.bf[i] = __bfloat162float(hb[i]);
    }
    CHECK(cudaMalloc(&p.a, nn * 2));
    CHECK(cudaMalloc(&p.b, nn * 2));
    CHECK(cudaMalloc(&p.c, nn * 4));
    CHECK(cudaMemcpy(p.a, ha.data(), nn * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(p.b, hb.data(), nn * 2, cudaMemcpyHostToDevice));
#ifndef NO_CUBLAS
    cublasHandle_t h;
    cublasCreate(&h);
    const float one = 1, zero = 0;
    auto cub = [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, p.s, p.s, p.s, &one, p.b, CUDA_R_16BF, p.s, p.a, CUDA_R_16BF, p.s,
                     &zero, p.c, CUDA_R_32F, p.s, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    cub();
    CHECK(cudaDeviceSynchronize());
    float ms = time_ms(5, cub);
    std::printf("%-34s ok   %6.1f TFLOP/s\n", "cublas", 2.0 * p.s * double(p.s) * p.s / (ms * 1e-3) / 1e12);
#endif
    //            BM   BN   BK  WM  WN  S  GROUP
    if (argc > 2) {
        run<Cfg<128, 128, 32, 64, 64, 3, 8>>(p, "128x128x32 w64x64 s3 g8 (4 warps)");
        run<Cfg<128, 128, 32, 64, 64, 4, 8>>(p, "128x128x32 w64x64 s4 g8 (4 warps)");
        run<Cfg<128, 128, 32, 64, 64, 5, 8>>(p, "128x128x32 w64x64 s5 g8 (4 warps)");
        run<Cfg<128, 128, 32, 64, 64, 4, 4>>(p, "128x128x32 w64x64 s4 g4 (4 warps)");
        run<Cfg<128, 128, 32, 64, 64, 4, 16>>(p, "128x128x32 w64x64 s4 g16 (4 warps)");
        run<Cfg<128, 128, 64, 64, 64, 4, 8>>(p, "128x128x64 w64x64 s4 g8 (4 warps)");
        run<Cfg<128, 128, 32, 64, 64, 4, 1>>(p, "128x128x32 w64x64 s4 (4 warps)");
        return 0;
    }
    run<Cfg<128, 128, 32, 64, 32, 3, 1>>(p, "128x128x32 w64x32 s3");
    run<Cfg<128, 128, 32, 64, 32, 4, 8>>(p, "128x128x32 w64x32 s4 g8");
    run<Cfg<128, 128, 32, 64, 64, 4, 8>>(p, "128x128x32 w64x64 s4 g8 (4 warps)");
    run<Cfg<128, 128, 64, 64, 64, 3, 8>>(p, "128x128x64 w64x64 s3 g8 (4 warps)");
    run<Cfg<128, 256, 32, 64, 64, 3, 1>>(p, "128x256x32 w64x64 s3");
    run<Cfg<128, 256, 32, 64, 64, 4, 8>>(p, "128x256x32 w64x64 s4 g8");
    run<Cfg<128, 256, 64, 64, 64, 3, 8>>(p, "128x256x64 w64x64 s3 g8");
    run<Cfg<256, 128, 32, 64, 64, 4, 8>>(p, "256x128x32 w64x64 s4 g8");
    run<Cfg<256, 128, 64, 64, 64, 3, 8>>(p, "256x128x64 w64x64 s3 g8");
    run<Cfg<128, 128, 64, 64, 32, 3, 8>>(p, "128x128x64 w64x32 s3 g8");
    run<Cfg<128, 128, 32, 32, 64, 4, 8>>(p, "128x128x32 w32x64 s4 g8");
    return 0;
}
