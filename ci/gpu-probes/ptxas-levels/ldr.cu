// The loader of ci/gpu-probes/ptxas-levels/levels.sh.
// ldr <module (ptx or cubin)> <entry> ... : launches fuzz-shaped entries (input ptr,len, out ptr,len)
// over the fuzz batch's 200 inputs, grid 4 x 64; prints thread 0..3 outputs.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); std::printf("%s: %s\n", #x, s); std::exit(1); } } while (0)
int main(int argc, char** argv) {
    std::ifstream f(argv[1], std::ios::binary); std::stringstream ss; ss << f.rdbuf(); std::string img = ss.str();
    DRV(cuInit(0)); CUdevice dev; DRV(cuDeviceGet(&dev, 0)); CUcontext ctx; DRV(cuCtxCreate(&ctx, nullptr, 0, dev));
    CUmodule mod; DRV(cuModuleLoadData(&mod, img.c_str()));
    unsigned long long edges[] = {0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, 0x80000000ull, 0x7fffffffull, 0xffffffffull, 0x7f800000ull, 0xff80000000000000ull, 0x7ff8000000000001ull, 0x3ff0000000000000ull};
    std::vector<unsigned long long> in(200), out(200);
    unsigned long long s = 0x123456789abcdef0ull;
    for (int i = 0; i < 200; ++i) { s += 0x9e3779b97f4a7c15ull; unsigned long long z = s; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z ^= z >> 27;
        in[i] = i % 4 == 0 ? edges[(i / 4) % 12] : i % 4 == 1 ? z % 1000 : z; }
    CUdeviceptr din, dout; DRV(cuMemAlloc(&din, 1600)); DRV(cuMemAlloc(&dout, 1600));
    DRV(cuMemcpyHtoD(din, in.data(), 1600));
    for (int a = 2; a < argc; ++a) {
        CUfunction fn; DRV(cuModuleGetFunction(&fn, mod, argv[a]));
        DRV(cuMemsetD8(dout, 0, 1600));
        unsigned long long n = 200; void* args[] = {&din, &n, &dout, &n};
        DRV(cuLaunchKernel(fn, 4, 1, 1, 64, 1, 1, 0, 0, args, nullptr)); DRV(cuCtxSynchronize());
        DRV(cuMemcpyDtoH(out.data(), dout, 1600));
        unsigned long long h = 1469598103934665603ull; for (int t = 0; t < 200; ++t) h = (h ^ out[t]) * 1099511628211ull; std::printf("%s %016llx %016llx\n", argv[a], out[0], h);
    }
}
