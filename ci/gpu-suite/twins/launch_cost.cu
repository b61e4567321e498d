// nvcc twin of kernels/launch_cost: 20000 launches of a three-buffer kernel over 1024 elements
// with `<<<>>>`, the host's wall time from the first launch to the end of the last kernel, per
// launch (after as many warm-up launches). Then the same launches through a CUDA graph: 100 of
// them captured on a stream (cudaStreamBeginCapture .. cudaStreamEndCapture, instantiated once),
// the graph launched 200 times on the default stream (cudaGraphLaunch), the host's wall time per
// replay, as kernels/launch_cost's graph mode. And the floor under both launchers: the same
// launches through the driver's `cuLaunchKernel` itself, with nothing around it (the function
// from cudaGetFuncBySymbol, the entry point from cudaGetDriverEntryPointByVersion: nothing more to
// link). Prints `launch_cost-nvcc raw: <us> us per cuLaunchKernel`,
// `launch_cost-nvcc graph: <us> us per replay of 100 launches`, then
// `launch_cost-nvcc n=<n> 0.0 GB/s <ms> ms`.
#include <chrono>
#include <cuda.h>
#include <vector>

#include "common.cuh"

__global__ void tiny_add(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
    size_t n;
    int reps;
    parse_args(argc, argv, &n, &reps);
    const unsigned elements = 1024, launches = 20000;
    std::vector<float> a(elements), b(elements), c(elements);
    for (unsigned i = 0; i < elements; ++i) {
        a[i] = float(i);
        b[i] = float(i % 7) * 0.5f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, elements * sizeof(float)));
    CHECK(cudaMalloc(&db, elements * sizeof(float)));
    CHECK(cudaMalloc(&dc, elements * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
    auto run = [&] {
        auto start = std::chrono::steady_clock::now();
        for (unsigned r = 0; r < launches; ++r) tiny_add<<<grid_for(elements), BLOCK>>>(da, db, dc, elements);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
        return ms.count() / launches;
    };
    run();
    double ms = run();

    // The driver call alone: the same kernel and arguments, no runtime API around it.
    using LaunchKernel = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, CUstream, void**, void**);
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || entry == nullptr) {
        std::fprintf(stderr, "no cuLaunchKernel entry point\n");
        return 2;
    }
    auto launch_kernel = reinterpret_cast<LaunchKernel>(entry);
    cudaFunction_t function;
    CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(tiny_add)));
    unsigned count = elements;
    void* params[] = {&da, &db, &dc, &count};
    auto raw = [&] {
        auto start = std::chrono::steady_clock::now();
        for (unsigned r = 0; r < launches; ++r)
            if (launch_kernel(reinterpret_cast<CUfunction>(function), grid_for(elements), 1, 1, BLOCK, 1,
                              1, 0, nullptr, params, nullptr) != CUDA_SUCCESS) {
                std::fprintf(stderr, "cuLaunchKernel failed\n");
                std::exit(2);
            }
        CHECK(cudaDeviceSynchronize());
        std::chrono::duration<double, std::milli> t = std::chrono::steady_clock::now() - start;
        return t.count() / launches;
    };
    raw();
    double raw_ms = raw();
    CHECK(cudaMemcpy(c.data(), dc, elements * sizeof(float), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < elements; ++i) {
        if (c[i] != a[i] + b[i]) {
            std::printf("launch_cost-nvcc n=%zu FAIL at %u\n", n, i);
            return 1;
        }
    }

    // The graph: its kernels must write dc themselves.
    const unsigned graph_launches = 100, replays = launches / graph_launches;
    CHECK(cudaMemset(dc, 0, elements * sizeof(float)));
    cudaStream_t capture;
    CHECK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));
    for (unsigned r = 0; r < graph_launches; ++r)
        tiny_add<<<grid_for(elements), BLOCK, 0, capture>>>(da, db, dc, elements);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamEndCapture(capture, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    auto replay = [&] {
        auto start = std::chrono::steady_clock::now();
        for (unsigned r = 0; r < replays; ++r) CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaDeviceSynchronize());
        std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
        return ms.count() / replays;
    };
    replay();
    double graph_ms = replay();
    CHECK(cudaMemcpy(c.data(), dc, elements * sizeof(float), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < elements; ++i) {
        if (c[i] != a[i] + b[i]) {
            std::printf("launch_cost-nvcc n=%zu FAIL at %u after the graph\n", n, i);
            return 1;
        }
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(capture));
    // No `<x> ms` in these lines: the suite's ratio is the per-launch line's.
    std::printf("launch_cost-nvcc raw: %.3f us per cuLaunchKernel\n", raw_ms * 1e3);
    std::printf("launch_cost-nvcc graph: %.2f us per replay of %u launches (%.3f us per launch)\n",
                graph_ms * 1e3, graph_launches, graph_ms * 1e3 / graph_launches);
    std::printf("launch_cost-nvcc n=%zu (%.2f us per launch of 3 buffers) 0.0 GB/s %.4f ms\n", n, ms * 1e3, ms);
    return 0;
}
