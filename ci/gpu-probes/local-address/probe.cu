// Is a thread's local variable at the same generic address in every thread? The backend's
// uniformity analysis takes it to be (codegen-backend/src/uniformity/body/values.rs: a thread's
// own variable's address, as an integer, is as uniform as its offset), so that iterator loops
// over a thread's own arrays may hold warp collectives. Each thread of 4 blocks of 256 writes
// the generic address of a local array it indexes with a run-time value (so it lives in local
// memory, not registers); the probe prints how many distinct addresses it saw (1 expected) and
// `PASS`/`FAIL`. Run: nvcc -O3 -arch=sm_90 -o probe probe.cu && ./probe
#include <cstdint>
#include <cstdio>
#include <set>
#include <vector>

__global__ void addresses(unsigned long long* out, int pick) {
    volatile int local[16];
    for (int i = 0; i < 16; ++i) local[i] = i * threadIdx.x;
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * t] = reinterpret_cast<unsigned long long>(&local[pick & 15]);
    out[2 * t + 1] = local[(pick + threadIdx.x) & 15];
}

int main() {
    const int threads = 4 * 256;
    unsigned long long* d = nullptr;
    if (cudaMalloc(&d, 2 * threads * sizeof(unsigned long long)) != cudaSuccess) return 2;
    addresses<<<4, 256>>>(d, 3);
    std::vector<unsigned long long> h(2 * threads);
    if (cudaMemcpy(h.data(), d, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
    std::set<unsigned long long> distinct;
    for (int t = 0; t < threads; ++t) distinct.insert(h[2 * t]);
    std::printf("local-address: %zu distinct generic address(es) of one local variable over %d threads (first %#llx): %s\n",
                distinct.size(), threads, *distinct.begin(), distinct.size() == 1 ? "PASS" : "FAIL");
    return distinct.size() == 1 ? 0 : 1;
}
