// nvcc twin of kernels/black_scholes: call and put prices of n options, one per thread, block
// 128, the same formula (CUDA's BlackScholes sample with expf, logf, sqrtf), the same options
// and check (against the formula in f64, within 1e-4 of max(1, |price|)) and timing.
// Prints `black_scholes-nvcc n=<n> <GB/s> GB/s <ms> ms`.
#include <cmath>
#include <vector>

#include "common.cuh"

constexpr float RISK_FREE = 0.02f, VOLATILITY = 0.30f;
constexpr unsigned BS_BLOCK = 128;

__device__ inline float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT_2PI = 0.39894228040143267793994605993438f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT_2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0 ? 1.0f - c : c;
}

__global__ void black_scholes(const float* __restrict__ spot, const float* __restrict__ strike,
                              const float* __restrict__ years, float r, float v,
                              float* __restrict__ call, float* __restrict__ put, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = spot[i], x = strike[i], t = years[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float cnd1 = cnd(d1), cnd2 = cnd(d2);
    float discount = x * expf(-r * t);
    call[i] = s * cnd1 - discount * cnd2;
    put[i] = discount * (1.0f - cnd2) - s * (1.0f - cnd1);
}

static double cnd64(double d) {
    double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
    double c = 0.3989422804014327 * std::exp(-0.5 * d * d) *
               (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
    return d > 0 ? 1.0 - c : c;
}

static bool close(float got, double expected) {
    return std::fabs(double(got) - expected) <= 1e-4 * std::fmax(std::fabs(expected), 1.0);
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    std::vector<float> s(n), x(n), t(n), call(n), put(n);
    unsigned state = 12345u;
    auto uniform = [&](float lo, float hi) {
        state = state * 1664525u + 1013904223u;
        return lo + (hi - lo) * float(state >> 8) / float(1u << 24);
    };
    for (size_t i = 0; i < n; ++i) {
        s[i] = uniform(5.0f, 30.0f);
        x[i] = uniform(1.0f, 100.0f);
        t[i] = uniform(0.25f, 10.0f);
    }
    float *ds, *dx, *dt, *dcall, *dput;
    for (float** p : {&ds, &dx, &dt, &dcall, &dput}) CHECK(cudaMalloc(p, n * sizeof(float)));
    CHECK(cudaMemcpy(ds, s.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dt, t.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    unsigned blocks = unsigned((n + BS_BLOCK - 1) / BS_BLOCK);
    auto launch = [&] {
        black_scholes<<<blocks, BS_BLOCK>>>(ds, dx, dt, RISK_FREE, VOLATILITY, dcall, dput, n);
    };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(call.data(), dcall, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(put.data(), dput, n * sizeof(float), cudaMemcpyDeviceToHost));
    double r = RISK_FREE, v = VOLATILITY;
    for (size_t i = 0; i < n; ++i) {
        double S = s[i], X = x[i], T = t[i];
        double d1 = (std::log(S / X) + (r + 0.5 * v * v) * T) / (v * std::sqrt(T));
        double d2 = d1 - v * std::sqrt(T);
        double discount = X * std::exp(-r * T);
        double c = S * cnd64(d1) - discount * cnd64(d2);
        double p = discount * (1.0 - cnd64(d2)) - S * (1.0 - cnd64(d1));
        if (!close(call[i], c) || !close(put[i], p)) {
            std::printf("black_scholes-nvcc n=%zu FAIL at %zu: call %g put %g expected %g %g\n", n, i,
                        call[i], put[i], c, p);
            return 1;
        }
    }
    float ms = time_ms(reps, launch);
    report("black_scholes-nvcc", n, 5.0 * n * sizeof(float), ms);
    for (float* p : {ds, dx, dt, dcall, dput}) CHECK(cudaFree(p));
    return 0;
}
