#include "autofuse_compiler.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/dll/shared_library.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "autofuse_codegen.h"
#include "autofuse_sha256.h"
#include "ge/logging.h"
#include "ge/minifloat.h"

extern char** environ;

namespace ge::cpu_autofuse {
namespace {

namespace fs = std::filesystem;

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

std::string errno_text(int error) { return std::generic_category().message(error); }

/// Logs `message` as a warning the first time this process sees it: a setting or a cache
/// that is refused is said once, not once per kernel.
void warn_once(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string>* said = new std::set<std::string>;  // never destroyed: used at exit
  std::lock_guard<std::mutex> lock(mutex);
  if (said->insert(message).second) GE_LOG_WARN("{}", message);
}

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  return std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(random());
}

std::string octal_mode(mode_t mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Why a file or directory of `path` with status `st` may not hold code this process
/// runs: it must be owned by the effective user and writable by nobody else.
std::optional<std::string> untrusted_because(const struct stat& st, const fs::path& path) {
  const uid_t user = ::geteuid();
  if (st.st_uid != user) {
    return path.string() + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(user) + ")";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return path.string() + " is writable by group or others (mode " + octal_mode(st.st_mode) + ")";
  }
  return std::nullopt;
}

/// Why someone other than the effective user or root could replace `canonical` (an
/// absolute path without symbolic links): one of the directories above it is owned by
/// another user, or writable by group or others without the sticky bit.
std::optional<std::string> replaceable_because(const fs::path& canonical) {
  const uid_t user = ::geteuid();
  for (fs::path directory = canonical.parent_path();; directory = directory.parent_path()) {
    struct stat st {};
    if (::lstat(directory.c_str(), &st) != 0) return "cannot inspect " + directory.string() + ": " + errno_text(errno);
    if (st.st_uid != user && st.st_uid != 0) {
      return directory.string() + " above it is owned by uid " + std::to_string(st.st_uid);
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
      return directory.string() + " above it is writable by group or others (mode " + octal_mode(st.st_mode) + ")";
    }
    if (directory == directory.root_path() || directory.parent_path() == directory) break;
  }
  return std::nullopt;
}

/// A directory that kernels may be compiled in and loaded from: its canonical path and an
/// open descriptor of it (files are opened relative to it, without following links).
struct TrustedDirectory {
  fs::path path;
  FileDescriptor fd;
};

/// Opens `path` as a TrustedDirectory, or says why it is not one.
Result<TrustedDirectory> open_trusted_directory(const fs::path& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return unsupported("cannot resolve " + path.string() + ": " + errno_text(errno));
  TrustedDirectory directory;
  directory.path = resolved;
  std::free(resolved);
  if (std::optional<std::string> why = replaceable_because(directory.path)) return unsupported(*why);
  directory.fd = FileDescriptor(::open(directory.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!directory.fd.valid()) return unsupported("cannot open " + directory.path.string() + ": " + errno_text(errno));
  struct stat st {};
  if (::fstat(directory.fd.get(), &st) != 0)
    return unsupported("cannot inspect " + directory.path.string() + ": " + errno_text(errno));
  if (std::optional<std::string> why = untrusted_because(st, directory.path)) return unsupported(*why);
  return directory;
}

/// Creates the missing directories of `path`, each 0700 whatever the umask.
Status create_private_directories(const fs::path& path) {
  fs::path prefix;
  for (const fs::path& part : fs::absolute(path).lexically_normal()) {
    prefix /= part;
    if (part == prefix.root_path() || part.empty()) continue;
    if (::mkdir(prefix.c_str(), 0700) == 0) {
      // A umask such as 0777 would leave the owner out too. Through a descriptor opened
      // without following links: chmod on the path would follow a link put there since.
      FileDescriptor made(::open(prefix.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      struct stat st {};
      if (made.valid() && ::fstat(made.get(), &st) == 0 && st.st_uid == ::geteuid()) ::fchmod(made.get(), 0700);
    } else if (errno != EEXIST) {
      return unsupported("cannot create " + prefix.string() + ": " + errno_text(errno));
    }
  }
  return Status::ok();
}

/// The cache directory `path`, created 0700 where missing, or why it may not be used.
Result<TrustedDirectory> open_cache_directory(const fs::path& path) {
  GE_RETURN_IF_ERROR(create_private_directories(path));
  return open_trusted_directory(path);
}

/// A fresh 0700 directory of this process under the temporary folder (TMPDIR, else
/// /tmp), removed with whatever is left in it when this goes away.
class PrivateDirectory {
 public:
  static Result<std::unique_ptr<PrivateDirectory>> make() {
    std::error_code error;
    std::vector<fs::path> parents = {fs::temp_directory_path(error)};
    if (error || parents[0] != "/tmp") parents.emplace_back("/tmp");
    std::string reasons;
    for (const fs::path& parent : parents) {
      if (parent.empty()) continue;
      std::string pattern = (parent / "ge-autofuse.XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) {
        reasons += "; cannot create a directory in " + parent.string() + ": " + errno_text(errno);
        continue;
      }
      auto made = std::unique_ptr<PrivateDirectory>(new PrivateDirectory(pattern));
      Result<TrustedDirectory> opened = open_trusted_directory(pattern);
      if (opened.is_ok()) {
        made->directory_ = std::move(opened).value();
        return made;
      }
      reasons += "; " + opened.status().message();
    }
    return unsupported("no private directory to compile the kernel in" + reasons);
  }
  ~PrivateDirectory() {
    std::error_code error;
    fs::remove_all(created_, error);
  }
  const TrustedDirectory& directory() const { return directory_; }

 private:
  explicit PrivateDirectory(fs::path created) : created_(std::move(created)) {}
  fs::path created_;
  TrustedDirectory directory_;
};

/// Files named relative to a directory, removed when this goes away unless released.
class Temporaries {
 public:
  explicit Temporaries(int directory_fd) : directory_fd_(directory_fd) {}
  ~Temporaries() {
    for (const std::string& name : names_) ::unlinkat(directory_fd_, name.c_str(), 0);
  }
  void add(std::string name) { names_.push_back(std::move(name)); }
  void release(const std::string& name) { std::erase(names_, name); }

 private:
  int directory_fd_;
  std::vector<std::string> names_;
};

/// The first line of `path` that mentions an error (or its first line).
std::string first_error_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

/// Runs `arguments` (argv[0] looked up on PATH) in a process group of its own, with stdout
/// and stderr into `log`; waits at most `timeout`, then kills the whole group (a compiler
/// driver's cc1plus, as and ld included) and reaps the compiler.
Status run_compiler(const std::vector<std::string>& arguments, const fs::path& log, std::chrono::milliseconds timeout) {
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // setpgid(0, 0) in the child: its pid is the group
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return unsupported("no C++ compiler: cannot run '" + arguments[0] + "': " + errno_text(spawned));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      // ECHILD (SIGCHLD ignored by the host): the compiler was reaped already, and its
      // pid may name someone else's group by now, so nothing is killed.
      return unsupported("waiting for the compiler failed: " + errno_text(errno));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);  // before reaping, while the leader's pid still names the group
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return unsupported("the compiler timed out after " + std::to_string(timeout.count()) +
                         " ms (GE_AUTOFUSE_COMPILE_TIMEOUT)");
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

/// Appended to every object the compiler writes (the loader ignores bytes past what the
/// ELF headers locate): the SHA-256 of the bytes before it. A cached file is read and
/// checked before it is mapped, so a damaged one (truncated, bit flips, half-written at a
/// power loss) is rebuilt instead of crashing the process inside dlopen or the kernel.
constexpr std::string_view kChecksumTag = "\nge-autofuse-sha256:";
constexpr size_t kChecksumTrailerBytes = kChecksumTag.size() + 64 + 1;

/// Larger files are not kernels of ours (a generated kernel is kilobytes to a few MB).
constexpr off_t kMaxObjectBytes = off_t{256} << 20;

std::string checksum_trailer(std::string_view content) {
  return std::string(kChecksumTag) + sha256_hex(content) + "\n";
}

bool has_valid_checksum(std::string_view file) {
  if (file.size() < kChecksumTrailerBytes) return false;
  const std::string_view body = file.substr(0, file.size() - kChecksumTrailerBytes);
  return file.substr(body.size()) == checksum_trailer(body);
}

/// The `size` bytes of `fd` from its start.
std::optional<std::string> read_file(int fd, off_t size) {
  std::string content(static_cast<size_t>(size), '\0');
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::pread(fd, content.data() + done, content.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    done += static_cast<size_t>(n);
  }
  return content;
}

bool write_all(int fd, std::string_view data, off_t offset) {
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = ::pwrite(fd, data.data() + done, data.size() - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

/// The definition appended to every kernel's source: the loader compares it with the key
/// it asked for, so that an object is never trusted by its file name.
std::string key_definition(const std::string& key) {
  return "\nextern \"C\" __attribute__((visibility(\"default\"), used)) const char ge_autofuse_key[] = \"" + key +
         "\";\n";
}

enum class LoadError { kNone, kBroken, kOtherKey };

/// Loads `object` as the kernel of `key`; `why` says which kind of failure an error is.
Result<CompiledKernel> load(const fs::path& object, const std::string& key, LoadError* why) {
  *why = LoadError::kBroken;
  try {
    auto library = std::make_shared<boost::dll::shared_library>(
        object, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    if (!library->has("ge_autofuse_key") || !library->has("ge_autofuse_abi") || !library->has("ge_autofuse_run")) {
      *why = LoadError::kOtherKey;
      return unsupported(object.string() + " is not an autofusion kernel of this version");
    }
    // strncmp stops at the first difference, so a shorter foreign symbol is never overread.
    const char* stored = &library->get<const char>("ge_autofuse_key");
    if (std::strncmp(stored, key.c_str(), key.size() + 1) != 0) {
      *why = LoadError::kOtherKey;
      return unsupported(object.string() + " does not match its key");
    }
    if (library->get<int()>("ge_autofuse_abi")() != kAbiVersion) {
      return unsupported(object.string() + " has another kernel ABI version");
    }
    CompiledKernel kernel;
    kernel.run = library->get<void(const void* const*, void* const*)>("ge_autofuse_run");
    kernel.library = std::move(library);
    kernel.key = key;
    *why = LoadError::kNone;
    return kernel;
  } catch (const std::exception& error) {
    return unsupported(object.string() + " does not load: " + error.what());
  }
}

/// The kernel of `key` in `cache`, when it holds a trusted file of it that loads. A file
/// of another kernel, or one that does not load, is removed (the caller rebuilds it); a
/// file that someone else could have written is left alone, and `refusal` says why.
std::optional<CompiledKernel> find_cached(const TrustedDirectory& cache, const std::string& key, std::string* refusal) {
  const std::string name = key + ".so";
  const fs::path object = cache.path / name;
  FileDescriptor fd(::openat(cache.fd.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno != ENOENT) *refusal = "cannot open " + object.string() + ": " + errno_text(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    *refusal = "cannot inspect " + object.string() + ": " + errno_text(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    *refusal = object.string() + " is not a regular file";
    return std::nullopt;
  }
  if (std::optional<std::string> why = untrusted_because(st, object)) {
    *refusal = *why;
    return std::nullopt;
  }
  std::optional<std::string> content;
  if (st.st_size <= kMaxObjectBytes) content = read_file(fd.get(), st.st_size);
  if (!content || !has_valid_checksum(*content)) {
    GE_LOG_WARN("autofusion: cache entry {} is damaged (its checksum does not match): recompiling", object.string());
    ::unlinkat(cache.fd.get(), name.c_str(), 0);
    return std::nullopt;
  }
  // Loaded by its name, not /proc/self/fd: glibc matches a name against the objects already
  // loaded, and a reused descriptor number would hand back another kernel. The name is safe
  // here because nobody else can write the directory.
  LoadError why = LoadError::kNone;
  Result<CompiledKernel> loaded = load(object, key, &why);
  if (loaded.is_ok()) {
    CompiledKernel kernel = std::move(loaded).value();
    kernel.cache_hit = true;
    return kernel;
  }
  if (why == LoadError::kOtherKey) {
    GE_LOG_WARN("autofusion: cache entry {} does not match its key: recompiling", object.string());
  } else {
    GE_LOG_INFO("autofusion: cache entry {} is unusable ({}): recompiling", object.string(), loaded.status().message());
  }
  ::unlinkat(cache.fd.get(), name.c_str(), 0);
  return std::nullopt;
}

/// Compiles `keyed_source` in `directory` under temporary names and loads the result;
/// with `into_cache` the object is then renamed to `<key>.so` and the source kept as
/// `<key>.cc` for inspection. Every other file made here is removed on every path.
Result<CompiledKernel> build(const TrustedDirectory& directory, const std::string& key, const std::string& keyed_source,
                             const CompilerSettings& settings, bool into_cache) {
  const std::string stem = key + "." + unique_suffix();
  const std::string source_name = stem + ".cc", object_name = stem + ".so.tmp", log_name = stem + ".log";
  Temporaries temporaries(directory.fd.get());
  temporaries.add(source_name);
  temporaries.add(object_name);
  temporaries.add(log_name);
  {
    const fs::path path = directory.path / source_name;
    FileDescriptor out(
        ::openat(directory.fd.get(), source_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!out.valid()) return unsupported("cannot write " + path.string() + ": " + errno_text(errno));
    for (size_t written = 0; written < keyed_source.size();) {
      const ssize_t n = ::write(out.get(), keyed_source.data() + written, keyed_source.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return unsupported("cannot write " + path.string() + ": " + errno_text(n < 0 ? errno : EIO));
      written += static_cast<size_t>(n);
    }
  }
  std::vector<std::string> arguments = {settings.compiler};
  std::istringstream flags(compile_flags());
  for (std::string flag; flags >> flag;) arguments.push_back(flag);
  const fs::path object = directory.path / object_name;
  arguments.insert(arguments.end(), {(directory.path / source_name).string(), "-o", object.string(), "-lmvec", "-lm"});
  const auto start = std::chrono::steady_clock::now();
  GE_RETURN_IF_ERROR(run_compiler(arguments, directory.path / log_name, settings.timeout));
  const double milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  // What the compiler wrote: a regular file of ours, made writable by nobody else whatever
  // the umask and given its checksum, so that the cache check accepts it later; on disk
  // before it is renamed into place.
  {
    FileDescriptor fd(::openat(directory.fd.get(), object_name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() && errno == ENOENT) {
      return unsupported("the compiler '" + settings.compiler + "' exited 0 but wrote no kernel (" + object.string() +
                         ")");
    }
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
      return unsupported("cannot open the compiled kernel " + object.string() + ": " + errno_text(errno));
    }
    if (!S_ISREG(st.st_mode)) return unsupported("the compiled kernel " + object.string() + " is not a regular file");
    if (::fchmod(fd.get(), st.st_mode & 0755) != 0) {
      return unsupported("cannot restrict the permissions of " + object.string() + ": " + errno_text(errno));
    }
    if (st.st_size > kMaxObjectBytes - static_cast<off_t>(kChecksumTrailerBytes)) {
      return unsupported("the compiled kernel " + object.string() + " is larger than " +
                         std::to_string(kMaxObjectBytes >> 20) + " MiB");
    }
    std::optional<std::string> content = read_file(fd.get(), st.st_size);
    if (!content) return unsupported("cannot read the compiled kernel " + object.string() + ": " + errno_text(errno));
    if (!write_all(fd.get(), checksum_trailer(*content), st.st_size) || (into_cache && ::fsync(fd.get()) != 0)) {
      return unsupported("cannot write the compiled kernel " + object.string() + ": " + errno_text(errno));
    }
  }
  // Loaded under its unique temporary name: a stale object under the final name may still
  // be loaded in this process, and glibc would hand that one back for the same name.
  LoadError why = LoadError::kNone;
  GE_ASSIGN_OR_RETURN(CompiledKernel kernel, load(object, key, &why));
  kernel.compile_milliseconds = milliseconds;
  if (!into_cache) return kernel;
  const std::string final_name = key + ".so";
  if (::renameat(directory.fd.get(), object_name.c_str(), directory.fd.get(), final_name.c_str()) != 0) {
    const std::string reason = errno_text(errno);
    GE_LOG_WARN("autofusion: cannot move the kernel into the cache ({} -> {}): {}; it is used uncached",
                object.string(), (directory.path / final_name).string(), reason);
    return kernel;
  }
  temporaries.release(object_name);
  const std::string kept_source = key + ".cc";
  if (::renameat(directory.fd.get(), source_name.c_str(), directory.fd.get(), kept_source.c_str()) == 0) {
    temporaries.release(source_name);
  }
  return kernel;
}

/// The home directory of the effective user's passwd entry, when it exists (services and
/// cron jobs often run without HOME); never created here.
fs::path passwd_home() {
  std::vector<char> buffer(16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr ||
      found->pw_dir == nullptr) {
    return {};
  }
  const fs::path home = found->pw_dir;
  std::error_code error;
  if (!home.is_absolute() || !fs::is_directory(home, error)) return {};
  return home;
}

/// The file `compiler` runs (looked up on PATH like posix_spawnp, links followed) as
/// "path size mtime": an upgraded compiler gives new keys, not the old build's objects.
std::string compiler_file_identity(const std::string& compiler) {
  std::vector<fs::path> candidates;
  if (compiler.find('/') != std::string::npos) {
    candidates.emplace_back(compiler);
  } else {
    std::istringstream path(environment("PATH"));
    for (std::string directory; std::getline(path, directory, ':');) {
      candidates.push_back(fs::path(directory.empty() ? "." : directory) / compiler);
    }
  }
  for (const fs::path& candidate : candidates) {
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      std::error_code error;
      const fs::path resolved = fs::canonical(candidate, error);
      return (error ? candidate : resolved).string() + ' ' + std::to_string(st.st_size) + ' ' +
             std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
    }
  }
  return "not found";
}

}  // namespace

const std::string& compile_flags() {
  static const std::string flags =
      "-std=c++17 -O3 -march=native -fPIC -shared -fopenmp -ffp-contract=off -fno-math-errno -fno-trapping-math -w";
  return flags;
}

Result<std::chrono::milliseconds> parse_compile_timeout(const std::string& seconds) {
  const char* begin = seconds.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  while (end != begin && (*end == ' ' || *end == '\t')) ++end;
  if (end == begin || *end != '\0' || std::isnan(value) || value <= 0) {
    return invalid_argument("GE_AUTOFUSE_COMPILE_TIMEOUT='" + seconds +
                            "' is not a positive number of seconds (at most " +
                            std::to_string(kMaxCompileTimeout.count() / 1000) + ")");
  }
  const double milliseconds = value * 1000;
  if (milliseconds >= static_cast<double>(kMaxCompileTimeout.count())) return kMaxCompileTimeout;  // inf too
  return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(milliseconds)));
}

CompilerSettings settings_from_environment() {
  CompilerSettings settings;
  if (std::string cxx = environment("GE_AUTOFUSE_CXX"); !cxx.empty()) settings.compiler = cxx;
  // Only per-user locations: a shared one (a fixed folder under /tmp) lets anyone who
  // creates it first choose the code every other user runs.
  if (std::string dir = environment("GE_AUTOFUSE_CACHE_DIR"); !dir.empty()) {
    settings.cache_dir = dir;
  } else if (std::string xdg = environment("XDG_CACHE_HOME"); fs::path(xdg).is_absolute()) {
    settings.cache_dir = fs::path(xdg) / "ge" / "autofuse";
  } else if (std::string home = environment("HOME"); fs::path(home).is_absolute()) {
    settings.cache_dir = fs::path(home) / ".cache" / "ge" / "autofuse";
  } else if (fs::path home = passwd_home(); !home.empty()) {
    settings.cache_dir = home / ".cache" / "ge" / "autofuse";
  }
  if (std::string seconds = environment("GE_AUTOFUSE_COMPILE_TIMEOUT"); !seconds.empty()) {
    Result<std::chrono::milliseconds> timeout = parse_compile_timeout(seconds);
    if (timeout.is_ok()) {
      settings.timeout = timeout.value();
    } else {
      warn_once("autofusion: " + timeout.status().message() + "; using " +
                std::to_string(settings.timeout.count() / 1000) + " s");
    }
  }
  return settings;
}

std::string cache_key(const std::string& source, const CompilerSettings& settings) {
  const std::string identity = source + '\0' + settings.compiler + '\0' + compiler_file_identity(settings.compiler) +
                               '\0' + compile_flags() + '\0' + cpu_features() + '\0' + std::to_string(kAbiVersion);
  return sha256_hex(identity);
}

Result<CompiledKernel> compile(const std::string& source, const CompilerSettings& settings) {
  const std::string key = cache_key(source, settings);
  const std::string keyed_source = source + key_definition(key);
  std::string refusal;
  if (!settings.cache_dir.empty()) {
    Result<TrustedDirectory> cache = open_cache_directory(settings.cache_dir);
    if (cache.is_ok()) {
      if (std::optional<CompiledKernel> cached = find_cached(cache.value(), key, &refusal)) return std::move(*cached);
      if (refusal.empty()) return build(cache.value(), key, keyed_source, settings, /*into_cache=*/true);
      warn_once("autofusion: not loading a cached kernel: " + refusal + "; compiling in a private temporary directory");
    } else {
      warn_once("autofusion: not using the kernel cache " + settings.cache_dir.string() + ": " +
                cache.status().message() + "; compiling in private temporary directories");
    }
  } else {
    static std::once_flag said;
    std::call_once(said, [] {
      GE_LOG_INFO(
          "autofusion: no per-user cache directory (no GE_AUTOFUSE_CACHE_DIR, XDG_CACHE_HOME, HOME or "
          "passwd home): kernels compile in private temporary directories");
    });
  }
  GE_ASSIGN_OR_RETURN(std::unique_ptr<PrivateDirectory> scratch, PrivateDirectory::make());
  return build(scratch->directory(), key, keyed_source, settings, /*into_cache=*/false);
}

}  // namespace ge::cpu_autofuse
