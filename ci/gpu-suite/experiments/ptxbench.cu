// Times a vecadd-shaped PTX entry (params: a ptr, a len, b ptr, b len, c ptr, c len: the oxide
// kernel ABI) loaded through the driver API, so hand-edited variants of oxide's PTX can be
// compared with each other and with nvcc's twin in one run.
// Usage: ptxbench <file.ptx> <entry> <n>   Prints `<label> n=<n> <GB/s> GB/s <ms> ms`.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); std::printf("%s: %s\n", #x, s); std::exit(1); } } while (0)

int main(int argc, char** argv) {
    if (argc < 4) { std::printf("usage: ptxbench file.ptx entry n\n"); return 2; }
    std::ifstream f(argv[1]);
    std::stringstream ss; ss << f.rdbuf();
    std::string ptx = ss.str();
    size_t n = std::strtoull(argv[3], nullptr, 10);
    cudaFree(0);
    CUmodule mod; CUfunction fn;
    DRV(cuModuleLoadData(&mod, ptx.c_str()));
    DRV(cuModuleGetFunction(&fn, mod, argv[2]));
    std::vector<float> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) { a[i] = float(i % 4096) * 0.5f; b[i] = float((i * 7) % 1000) * 0.25f; }
    float *da, *db, *dc;
    cudaMalloc(&da, n * 4); cudaMalloc(&db, n * 4); cudaMalloc(&dc, n * 4);
    cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice);
    unsigned long long len = n;
    void* params[] = {&da, &len, &db, &len, &dc, &len};
    unsigned block = 256, grid = unsigned((n + block - 1) / block);
    auto launch = [&] { DRV(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0, params, nullptr)); };
    launch();
    cudaDeviceSynchronize();
    cudaMemcpy(c.data(), dc, n * 4, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; ++i) if (c[i] != a[i] + b[i]) { std::printf("%s FAIL at %zu\n", argv[1], i); return 1; }
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    const int reps = 20;
    cudaEventRecord(s);
    for (int r = 0; r < reps; ++r) launch();
    cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, s, e); ms /= reps;
    std::printf("%s n=%zu %.1f GB/s %.4f ms\n", argv[1], n, 3.0 * n * 4 / ms / 1e6, ms);
    return 0;
}
