#pragma once
/// Online compilation of generated kernels: the system C++ compiler builds a shared object
/// into a disk cache keyed by a hash of (source, compiler, flags, CPU features), written
/// under a temporary name and renamed into place, so processes compiling the same kernel
/// at once never see a partial file; Boost.DLL loads it. A cached object that does not
/// load (corrupt, truncated, another ABI) is rebuilt once.
///
/// Environment: GE_AUTOFUSE_CXX (the compiler, default `c++` on PATH),
/// GE_AUTOFUSE_CACHE_DIR (default $XDG_CACHE_HOME/ge/autofuse, else ~/.cache/ge/autofuse),
/// GE_AUTOFUSE_COMPILE_TIMEOUT (seconds, default 60).

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "ge/status.h"

namespace boost::dll {
class shared_library;
}

namespace ge::cpu_autofuse {

using RunFunction = void (*)(const void* const* inputs, void* const* outputs);

struct CompilerSettings {
  std::string compiler = "c++";
  std::filesystem::path cache_dir;
  std::chrono::milliseconds timeout{60000};
};

/// The settings the environment variables above give.
CompilerSettings settings_from_environment();

/// The flags every kernel is compiled with.
const std::string& compile_flags();

/// Hex key of `source` under `settings` (the cache file's stem).
std::string cache_key(const std::string& source, const CompilerSettings& settings);

struct CompiledKernel {
  std::shared_ptr<boost::dll::shared_library> library;
  RunFunction run = nullptr;
  std::string key;
  bool cache_hit = false;
  double compile_milliseconds = 0;  ///< 0 on a cache hit
};

/// The kernel of `source`, from the cache or compiled now. Errors (kUnsupported) say why
/// there is none: no compiler, the compiler failed (its first error line), timed out, or
/// the object does not load.
Result<CompiledKernel> compile(const std::string& source, const CompilerSettings& settings);

}  // namespace ge::cpu_autofuse
