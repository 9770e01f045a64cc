#include "autofuse_compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/dll/shared_library.hpp>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "autofuse_codegen.h"
#include "ge/minifloat.h"

extern char** environ;

namespace ge::cpu_autofuse {
namespace {

uint64_t fnv1a(const std::string& text, uint64_t seed) {
  uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

/// The CPU features -march=native may use, so that a cache shared between machines never
/// hands one an object built for another's instructions.
std::string cpu_features() {
  std::string features;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx")) features += "avx,";
  if (__builtin_cpu_supports("avx2")) features += "avx2,";
  if (__builtin_cpu_supports("fma")) features += "fma,";
  if (cpu_converts_float16()) features += "f16c,";  // clang's __builtin_cpu_supports has no "f16c"
  if (__builtin_cpu_supports("avx512f")) features += "avx512f,";
  if (__builtin_cpu_supports("avx512bw")) features += "avx512bw,";
  if (__builtin_cpu_supports("avx512vl")) features += "avx512vl,";
  return features;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  return std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(random());
}

/// The first line of `path` that mentions an error (or its first line).
std::string first_error_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

/// Runs `arguments` (argv[0] looked up on PATH) with stdout and stderr into `log`; waits
/// at most `timeout`, then kills it.
Status run_compiler(const std::vector<std::string>& arguments, const std::filesystem::path& log,
                    std::chrono::milliseconds timeout) {
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return unsupported("no C++ compiler: cannot run '" + arguments[0] + "': " + std::generic_category().message(spawned));
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return unsupported("waiting for the compiler failed");
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return unsupported("the compiler timed out after " + std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return unsupported("no C++ compiler: '" + arguments[0] + "' was not found");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return unsupported("the compiler failed: " + first_error_line(log));
  }
  return Status::ok();
}

Result<CompiledKernel> load(const std::filesystem::path& object) {
  try {
    auto library = std::make_shared<boost::dll::shared_library>(object.string(), boost::dll::load_mode::rtld_now |
                                                                                   boost::dll::load_mode::rtld_local);
    if (!library->has("ge_autofuse_abi") || !library->has("ge_autofuse_run")) {
      return unsupported(object.string() + " is not an autofusion kernel");
    }
    if (library->get<int()>("ge_autofuse_abi")() != kAbiVersion) {
      return unsupported(object.string() + " has another kernel ABI version");
    }
    CompiledKernel kernel;
    kernel.run = library->get<void(const void* const*, void* const*)>("ge_autofuse_run");
    kernel.library = std::move(library);
    return kernel;
  } catch (const std::exception& error) {
    return unsupported(object.string() + " does not load: " + error.what());
  }
}

}  // namespace

const std::string& compile_flags() {
  static const std::string flags = "-std=c++17 -O3 -march=native -fPIC -shared -fopenmp -ffp-contract=off -fno-math-errno -fno-trapping-math -w";
  return flags;
}

CompilerSettings settings_from_environment() {
  CompilerSettings settings;
  if (std::string cxx = environment("GE_AUTOFUSE_CXX"); !cxx.empty()) settings.compiler = cxx;
  if (std::string dir = environment("GE_AUTOFUSE_CACHE_DIR"); !dir.empty()) {
    settings.cache_dir = dir;
  } else if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) {
    settings.cache_dir = std::filesystem::path(xdg) / "ge" / "autofuse";
  } else if (std::string home = environment("HOME"); !home.empty()) {
    settings.cache_dir = std::filesystem::path(home) / ".cache" / "ge" / "autofuse";
  } else {
    settings.cache_dir = std::filesystem::temp_directory_path() / "ge-autofuse";
  }
  if (std::string seconds = environment("GE_AUTOFUSE_COMPILE_TIMEOUT"); !seconds.empty()) {
    char* end = nullptr;
    const double value = std::strtod(seconds.c_str(), &end);
    if (end != seconds.c_str() && value > 0) settings.timeout = std::chrono::milliseconds(static_cast<int64_t>(value * 1000));
  }
  return settings;
}

std::string cache_key(const std::string& source, const CompilerSettings& settings) {
  const std::string identity = source + '\0' + settings.compiler + '\0' + compile_flags() + '\0' + cpu_features() +
                               '\0' + std::to_string(kAbiVersion);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%016llx%016llx",
                static_cast<unsigned long long>(fnv1a(identity, 14695981039346656037ULL)),
                static_cast<unsigned long long>(fnv1a(identity, 0x9e3779b97f4a7c15ULL)));
  return buffer;
}

Result<CompiledKernel> compile(const std::string& source, const CompilerSettings& settings) {
  const std::string key = cache_key(source, settings);
  const std::filesystem::path object = settings.cache_dir / (key + ".so");
  std::error_code error;
  if (std::filesystem::exists(object, error)) {
    Result<CompiledKernel> cached = load(object);
    if (cached.is_ok()) {
      CompiledKernel kernel = std::move(cached).value();
      kernel.key = key;
      kernel.cache_hit = true;
      return kernel;
    }
    // Corrupt or foreign: rebuilt below (the rename replaces it).
  }
  std::filesystem::create_directories(settings.cache_dir, error);
  if (error) return unsupported("cannot create the kernel cache " + settings.cache_dir.string() + ": " + error.message());
  const std::string suffix = unique_suffix();
  const std::filesystem::path source_path = settings.cache_dir / (key + "." + suffix + ".cc");
  const std::filesystem::path temporary = settings.cache_dir / (key + "." + suffix + ".so.tmp");
  const std::filesystem::path log = settings.cache_dir / (key + "." + suffix + ".log");
  {
    std::ofstream out(source_path);
    out << source;
    if (!out) return unsupported("cannot write " + source_path.string());
  }
  std::vector<std::string> arguments = {settings.compiler};
  std::istringstream flags(compile_flags());
  for (std::string flag; flags >> flag;) arguments.push_back(flag);
  arguments.insert(arguments.end(), {source_path.string(), "-o", temporary.string(), "-lmvec", "-lm"});
  const auto start = std::chrono::steady_clock::now();
  Status compiled = run_compiler(arguments, log, settings.timeout);
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove(log, error);
  if (!compiled.is_ok()) {
    std::filesystem::remove(source_path, error);
    std::filesystem::remove(temporary, error);
    return compiled;
  }
  std::filesystem::rename(temporary, object, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return unsupported("cannot move the kernel into the cache: " + error.message());
  }
  std::filesystem::rename(source_path, settings.cache_dir / (key + ".cc"), error);  // kept for inspection
  GE_ASSIGN_OR_RETURN(CompiledKernel kernel, load(object));
  kernel.key = key;
  kernel.compile_milliseconds = milliseconds;
  return kernel;
}

}  // namespace ge::cpu_autofuse
