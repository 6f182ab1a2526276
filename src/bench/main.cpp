// main.cpp of ap_bench: the native side of scripts/bench. Times attend() and gemm() with the very
// loops the wasm module runs (src/core/bench.hpp) and prints one JSON object. Not a test.
//   ap_bench [--quick]
//   ap_bench --forward N D_MODEL HEADS ITERATIONS   (one size; scripts/bench interleaves these)
//   ap_bench --hf LAYERS D_MODEL HEADS N ITERATIONS (a GPT-2-shaped model's full forward)
//   ap_bench --hf-readout FOLDER ITERATIONS ID,ID,...  (a model folder's read-out of those ids:
//                                                      the ONNX benchmark, scripts/perf/onnx.mjs)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "error.hpp"
#include "gemm.hpp"
#include "hf_model.hpp"

namespace {

struct Size {
  int n, d_model, heads, iterations, quick_iterations;
};

// the sizes the performance targets name; iterations keep each size well under a second at -O2
const Size kSizes[] = {
    {8, 16, 2, 2000, 200}, {64, 64, 4, 400, 40}, {128, 256, 4, 60, 10}, {512, 768, 12, 10, 3}};

struct GemmSize {
  int m, k, n, iterations;
};
const GemmSize kGemm[] = {{512, 768, 64, 40}, {512, 64, 512, 40}, {512, 768, 768, 6}};

void print_ms(const std::vector<double>& ms) {
  std::printf("[");
  for (std::size_t i = 0; i < ms.size(); ++i) std::printf(i ? ",%.5f" : "%.5f", ms[i]);
  std::printf("]");
}

// a file of the model folder, whole
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ap::Error("io", "cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<double> hf_readout_of_folder(const std::string& dir, int iterations,
                                         const char* id_list) {
  const ap::HfConfig c = ap::parse_hf_config(read_file(dir + "/" + ap::kHfConfigFile));
  const std::string w = read_file(dir + "/" + ap::kHfWeightsFile);
  ap::HfModel m = ap::load_hf_model(c, reinterpret_cast<const unsigned char*>(w.data()), w.size());
  ap::pack_hf_weights(m);  // as the page's module does (natively nothing: Eigen reads them)
  std::vector<int> ids;
  for (const char* p = id_list; *p;) {
    char* end = nullptr;
    ids.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    if (end == p) throw ap::Error("bad_token_id", "ids must be whole numbers separated by commas");
    p = *end == ',' ? end + 1 : end;
  }
  return ap::bench_hf_readout(m, ids, iterations);
}

int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--forward") == 0) {
    const int n = std::atoi(argv[2]), d = std::atoi(argv[3]), h = std::atoi(argv[4]);
    print_ms(ap::bench_forward(n, d, h, std::atoi(argv[5])));
    std::printf("\n");
    return 0;
  }
  if (argc == 7 && std::strcmp(argv[1], "--hf") == 0) {
    print_ms(ap::bench_hf_forward(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]),
                                  std::atoi(argv[5]), std::atoi(argv[6])));
    std::printf("\n");
    return 0;
  }
  if (argc == 5 && std::strcmp(argv[1], "--hf-readout") == 0) {
    print_ms(hf_readout_of_folder(argv[2], std::atoi(argv[3]), argv[4]));
    std::printf("\n");
    return 0;
  }
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf("{\"eigenSimd\":\"%s\",\"forward\":[", Eigen::SimdInstructionSetsInUse());
  bool first = true;
  for (const Size& s : kSizes) {
    const std::vector<double> ms =
        ap::bench_forward(s.n, s.d_model, s.heads, quick ? s.quick_iterations : s.iterations);
    std::printf("%s{\"n\":%d,\"dModel\":%d,\"heads\":%d,\"flops\":%.0f,\"ms\":", first ? "" : ",",
                s.n, s.d_model, s.heads, ap::forward_flops(s.n, s.d_model, s.heads));
    print_ms(ms);
    std::printf("}");
    std::fflush(stdout);
    first = false;
  }
  std::printf("],\"train\":[");
  first = true;
  for (const Size& s : kSizes) {
    const int iters = std::max(2, (quick ? s.quick_iterations : s.iterations) / 3);
    const std::vector<double> ms = ap::bench_train_step(s.n, s.d_model, s.heads, iters);
    std::printf("%s{\"n\":%d,\"dModel\":%d,\"heads\":%d,\"ms\":", first ? "" : ",", s.n, s.d_model,
                s.heads);
    print_ms(ms);
    std::printf("}");
    std::fflush(stdout);
    first = false;
  }
  std::printf("],\"gemm\":[");
  first = true;
  for (const GemmSize& g : kGemm) {
    const std::vector<double> ms = ap::bench_gemm(g.m, g.k, g.n, quick ? 3 : g.iterations);
    std::printf("%s{\"m\":%d,\"k\":%d,\"n\":%d,\"ms\":", first ? "" : ",", g.m, g.k, g.n);
    print_ms(ms);
    std::printf("}");
    first = false;
  }
  std::printf("]}\n");
  return 0;
}

}  // namespace

// A failure ends the run with a message on stderr and exit status 2, as the qkv CLI does, never
// with an uncaught exception; scripts/bench then stops on the non-zero status.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const ap::Error& e) {
    std::fprintf(stderr, "ap_bench: error: %s\n", e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ap_bench: error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ap_bench: error: unexpected: %s\n", e.what());
  }
  return 2;
}
