#pragma once
/// Online compilation of generated kernels: the system C++ compiler builds a shared object
/// into a per-user disk cache keyed by the SHA-256 of (source, compiler and the file it
/// runs, flags, CPU features, ABI version), written under a temporary name and renamed
/// into place, so processes compiling the same kernel at once never see a partial file;
/// Boost.DLL loads it.
///
/// The cache holds code this process runs, so, as ssh treats ~/.ssh, it is used only when
/// the directory and each cached file are owned by the effective user and writable by
/// nobody else, and each directory above it is owned by that user or root and writable by
/// nobody else (or sticky, like /tmp). Directories made here are 0700. A cache or entry
/// that fails these checks is not used (one log line says why): the kernel is compiled in
/// a private temporary directory (mkdtemp) that is removed once it is loaded. Each object
/// ends with the SHA-256 of its bytes, checked before it is mapped: a damaged file
/// (truncated, bit flips) is rebuilt, never loaded. Every kernel exports its key
/// (`ge_autofuse_key`, appended to the source here) and is used only when that is the key
/// asked for: a cached object of another kernel (copied over the file, or stale) is removed
/// and rebuilt, as is one that does not load (another ABI).
///
/// Environment: GE_AUTOFUSE_CXX (the compiler, default `c++` on PATH),
/// GE_AUTOFUSE_CACHE_DIR (default $XDG_CACHE_HOME/ge/autofuse, else $HOME/.cache/ge/autofuse,
/// else under the home directory of the user's passwd entry; with none of them, no cache),
/// GE_AUTOFUSE_COMPILE_TIMEOUT (seconds, default 60, at most kMaxCompileTimeout).

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

inline constexpr std::chrono::milliseconds kMaxCompileTimeout{3600 * 1000};

struct CompilerSettings {
  std::string compiler = "c++";
  /// Empty: no cache; each kernel is compiled in a private temporary directory.
  std::filesystem::path cache_dir;
  std::chrono::milliseconds timeout{60000};
};

/// The settings the environment variables above give. An invalid timeout keeps the
/// default and logs one warning per process.
CompilerSettings settings_from_environment();

/// GE_AUTOFUSE_COMPILE_TIMEOUT's text as a timeout: a positive number of seconds, at
/// least 1 ms; above kMaxCompileTimeout (inf included) it is kMaxCompileTimeout. An error
/// for anything else (nan, zero, negative, trailing text) that names the value.
Result<std::chrono::milliseconds> parse_compile_timeout(const std::string& seconds);

/// The flags every kernel is compiled with.
const std::string& compile_flags();

/// Hex key of `source` under `settings` (the cache file's stem, and the kernel's
/// `ge_autofuse_key`).
std::string cache_key(const std::string& source, const CompilerSettings& settings);

struct CompiledKernel {
  std::shared_ptr<boost::dll::shared_library> library;
  RunFunction run = nullptr;
  std::string key;
  bool cache_hit = false;
  double compile_milliseconds = 0;  ///< 0 on a cache hit
};

/// The kernel of `source`, from the cache or compiled now. Errors (kUnsupported) say why
/// there is none: no compiler, the compiler failed (its first error line), timed out
/// (its whole process group is killed) or wrote nothing, no private directory to compile
/// in, or the object does not load.
Result<CompiledKernel> compile(const std::string& source, const CompilerSettings& settings);

}  // namespace ge::cpu_autofuse
