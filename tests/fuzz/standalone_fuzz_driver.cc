// A driver for a libFuzzer target (LLVMFuzzerTestOneInput) where libFuzzer is not
// available (a GCC build): runs every file of the seed corpus and of the crash folder,
// then mutants of the seeds (bytes flipped, set, inserted, erased; truncations; splices of
// two seeds) from a fixed seed until SECONDS pass. A crash or hang is the process's; the
// mutant being run is written to ./fuzz-current-input first, so it can be replayed.
//   DRIVER CORPUS_DIR CRASH_DIR SECONDS
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<std::string> read_folder(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return files;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return files;
}

void run(const std::string& input) {
  {
    std::ofstream current("fuzz-current-input", std::ios::binary | std::ios::trunc);
    current.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string mutate(const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  std::string s = seeds[rng() % seeds.size()];
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 6) {
      case 0: if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1u << (rng() % 8))); break;
      case 1: if (!s.empty()) s[at] = static_cast<char>(rng()); break;
      case 2: s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng())); break;
      case 3: if (!s.empty()) s.erase(at, 1 + rng() % 8); break;
      case 4: s.resize(at); break;
      default: {
        const std::string& other = seeds[rng() % seeds.size()];
        if (!other.empty()) s = s.substr(0, at) + other.substr(rng() % other.size());
      }
    }
  }
  if (!s.empty() && s.size() > 1 && rng() % 2 == 0) s[0] = seeds[rng() % seeds.size()][0];  // keep a mode byte often
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR CRASH_DIR SECONDS\n", argv[0]);
    return 2;
  }
  const std::vector<std::string> seeds = read_folder(argv[1]);
  if (seeds.empty()) {
    std::fprintf(stderr, "no seeds in '%s'\n", argv[1]);
    return 2;
  }
  for (const std::string& s : read_folder(argv[2])) run(s);
  for (const std::string& s : seeds) run(s);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(std::stoi(argv[3]));
  std::mt19937_64 rng(20261207);
  size_t runs = 0;
  while (std::chrono::steady_clock::now() < end) {
    run(mutate(seeds, rng));
    ++runs;
  }
  std::printf("%zu seeds and %zu mutants ran without a crash\n", seeds.size(), runs);
  return 0;
}
