// Runs narrow.ptx (gen.py: a sign-extended i8/i16 in a 16- or 32-bit register, then one use) or
// the backend's PTX of tests/ui/codegen/pass_cttz_probe.rs (kernels r_*: bit counts of a clamped
// i8/i16), for 65,536 inputs (every low 16 bits, random high bits) at JIT -O0 and -O3, checked
// against the host. Usage: narrow PTX NAMES [TAG]; NAMES has per kernel "name h W BITS USE"
// (hand-written, parameters in, zeros, out) or "name r" (the backend's: in, len, out, len). One
// line per kernel and level: "[TAG ]name O<level> ok|BAD ...".
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <string>
#include <fstream>
#include <sstream>
#include <algorithm>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1);} } while (0)
struct K { std::string name, mode, use; int w = 0, bits = 0; };
static int popc(uint64_t v) { return __builtin_popcountll(v); }
// NVPTX's trailing_zeros of an i8 value held in a register: 8 at zero, else popc(~m & (m-1) & 255).
static uint64_t tz8seq(int64_t m) { return m == 0 ? 8 : popc((uint64_t)(~m & (m - 1)) & 255); }
static uint64_t tz(uint64_t v, int bits) { v &= bits == 64 ? ~0ull : ((1ull << bits) - 1); return v == 0 ? bits : __builtin_ctzll(v); }
static uint64_t lz(uint64_t v, int bits) { v &= (1ull << bits) - 1; int n = 0; for (int b = bits - 1; b >= 0 && !((v >> b) & 1); b--) n++; return n; }
static bool hand(const K& k, uint64_t x, uint64_t& e) {
    int64_t a = k.bits == 8 ? (int64_t)(int8_t)x : (int64_t)(int16_t)x;
    uint64_t wmask = k.w == 16 ? 0xffffull : 0xffffffffull;
    int64_t m = std::max<int64_t>(a, 0);
    const std::string& u = k.use;
    if (u == "id") e = a;
    else if (u == "zx") e = (uint64_t)a & wmask;
    else if (u == "max0" || u == "max0z" || u == "maxr") e = m;
    else if (u == "min0") e = std::min<int64_t>(a, 0);
    else if (u == "maxn") e = std::max<int64_t>(a, -3);
    else if (u == "lt0") e = a < 0;
    else if (u == "le0m") e = a <= 0;
    else if (u == "sar") e = a < 0 ? ~0ull : 0;
    else if (u == "and255") e = (uint64_t)a & 255;
    else if (u == "tzmb" || u == "tzms") e = tz8seq(m);
    else if (u == "tza") e = tz8seq(a);
    else if (u == "popm") e = popc(m);
    else if (u == "clzm") e = m == 0 ? 32 : __builtin_clz((uint32_t)m);
    else if (u == "addm") e = m - 1;
    else if (u == "umineq" || u == "umineqw") e = ((uint64_t)a & 255) * 2 >= 255;
    else if (u == "absx8" || u == "absx8m") e = (int64_t)(int8_t)(uint8_t)(a < 0 ? -a : a);
    else return false;
    return true;
}
static bool rust(const K& k, uint64_t x, uint64_t& e) {
    std::string n = k.name;
    bool i8 = n.rfind("r_i8_", 0) == 0; if (!i8 && n.rfind("r_i16_", 0) != 0) return false;
    std::string u = n.substr(i8 ? 5 : 6); int bits = i8 ? 8 : 16;
    int64_t a = i8 ? (int64_t)(int8_t)x : (int64_t)(int16_t)x;
    int64_t m = std::max<int64_t>(a, 0);
    if (u == "max0") e = m;
    else if (u == "max0_tz" || u == "p2224") e = tz(m, bits);
    else if (u == "max0_lz") e = lz(m, bits);
    else if (u == "max0_popc") e = popc(m);
    else if (u == "min0_tz") e = tz((uint64_t)std::min<int64_t>(a, 0), bits);
    else if (u == "clamp_tz") e = tz((uint64_t)std::min<int64_t>(std::max<int64_t>(a, -3), i8 ? 50 : 500), bits);
    else if (u == "tz") e = tz((uint64_t)a, bits);
    else if (u == "p620") e = tz(m, 64);
    else return false;
    return true;
}
int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: narrow PTX NAMES [TAG]\n"); return 2; }
    std::string tag = argc > 3 ? std::string(argv[3]) + " " : "";
    std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string ptx = ss.str();
    std::vector<K> ks; { std::ifstream in(argv[2]); std::string ln; while (std::getline(in, ln)) { std::istringstream s(ln); K k; s >> k.name >> k.mode; if (k.mode == "h") s >> k.w >> k.bits >> k.use; if (!k.name.empty()) ks.push_back(k); } }
    const int n = 65536;
    std::vector<uint64_t> a(n), z(n, 0);
    for (int i = 0; i < n; i++) { uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull; h ^= h >> 29; h *= 0xbf58476d1ce4e5b9ull; a[i] = (uint64_t)i | (h << 16); }
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUdeviceptr da, dz, dout; CK(cuMemAlloc(&da, n * 8)); CK(cuMemAlloc(&dz, n * 8)); CK(cuMemAlloc(&dout, n * 8));
    CK(cuMemcpyHtoD(da, a.data(), n * 8)); CK(cuMemcpyHtoD(dz, z.data(), n * 8));
    int total_bad = 0;
    for (int opt : {0, 3}) {
        CUjit_option opts[1] = {CU_JIT_OPTIMIZATION_LEVEL}; void* vals[1] = {(void*)(uintptr_t)opt};
        CUmodule mod; CK(cuModuleLoadDataEx(&mod, ptx.c_str(), 1, opts, vals));
        for (auto& k : ks) {
            CUfunction fn; CK(cuModuleGetFunction(&fn, mod, k.name.c_str()));
            CK(cuMemsetD8(dout, 0xee, n * 8)); uint64_t len = n;
            void* hp[] = {&da, &dz, &dout}; void* rp[] = {&da, &len, &dout, &len};
            CK(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, 0, k.mode == "r" ? rp : hp, 0)); CK(cuCtxSynchronize());
            std::vector<uint64_t> out(n); CK(cuMemcpyDtoH(out.data(), dout, n * 8));
            int bad = 0; uint64_t fx = 0, fe = 0, fg = 0; bool known = true;
            for (int i = 0; i < n; i++) {
                uint64_t e = 0;
                if (!(k.mode == "r" ? rust(k, a[i], e) : hand(k, a[i], e))) { known = false; break; }
                if (e != out[i]) { if (!bad) { fx = a[i]; fe = e; fg = out[i]; } bad++; }
            }
            if (!known) { printf("%s%s O%d UNKNOWN (no host side)\n", tag.c_str(), k.name.c_str(), opt); continue; }
            total_bad += bad > 0;
            printf("%s%s O%d %s", tag.c_str(), k.name.c_str(), opt, bad ? "BAD" : "ok");
            if (bad) printf(" %d wrong, e.g. low16=%04llx (i8 %d) want %llx got %llx", bad, (unsigned long long)(fx & 0xffff), (int)(int8_t)fx, (unsigned long long)fe, (unsigned long long)fg);
            printf("\n");
        }
        CK(cuModuleUnload(mod));
    }
    printf("%s# %d BAD\n", tag.c_str(), total_bad);
    return 0;
}
