// The online compiler: its cache (hits, corrupt entries, racing processes), what it trusts
// (only private directories and files of this user, only an object that carries its key),
// where it puts the cache by default, its compiler process (errors, timeouts that kill the
// whole process group, a compiler that writes nothing) and what it leaves behind.

#include "autofuse_compiler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autofuse_codegen.h"
#include "autofuse_sha256.h"
#include "ge/logging.h"

namespace ge::cpu_autofuse {
namespace {

namespace fs = std::filesystem;

const char* kSource =
    "extern \"C\" int ge_autofuse_abi() { return 1; }\n"
    "extern \"C\" void ge_autofuse_run(const void* const* in, void* const* out) {\n"
    "  *static_cast<float*>(out[0]) = *static_cast<const float*>(in[0]) * 3.0f;\n}\n";

const char* kOtherSource =
    "extern \"C\" int ge_autofuse_abi() { return 1; }\n"
    "extern \"C\" void ge_autofuse_run(const void* const* in, void* const* out) {\n"
    "  *static_cast<float*>(out[0]) = *static_cast<const float*>(in[0]) * 5.0f;\n}\n";

/// y for x = 2: 6 from kSource's kernel.
float run_kernel(const CompiledKernel& kernel) {
  const float x = 2.0f;
  float y = 0.0f;
  const void* in[] = {&x};
  void* out[] = {&y};
  kernel.run(in, out);
  return y;
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::vector<std::string> names_in(const fs::path& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// What the `ge` logger says while this lives.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_)), level_(ge::logger().level()) {
    ge::logger().sinks().push_back(sink_);
    if (level_ > spdlog::level::warn) ge::logger().set_level(spdlog::level::warn);
  }
  ~LogCapture() {
    auto& sinks = ge::logger().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    ge::logger().set_level(level_);
  }
  std::string text() {
    ge::logger().flush();
    return stream_.str();
  }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_;
};

class AutofuseCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ge_autofuse_compiler_test_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::permissions(root_, fs::perms::owner_all);
    cache_ = root_ / "cache";
    ::setenv("GE_AUTOFUSE_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override {
    std::error_code error;
    fs::remove_all(root_, error);
  }

  /// An executable shell script at root_/name.
  fs::path script(const std::string& name, const std::string& body) {
    const fs::path path = root_ / name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  /// A valid kernel library at `path` that claims kSource's key but computes x * 100, and
  /// whose constructor creates root_/ran: what an attacker would plant. With `checksum` it
  /// ends with the SHA-256 trailer the cache expects, as an attacker can compute too.
  void plant(const fs::path& path, bool checksum = true) {
    const fs::path source = root_ / "planted.cc";
    std::ofstream(source) << "#include <cstdio>\n"
                          << "extern \"C\" const char ge_autofuse_key[] = \""
                          << cache_key(kSource, settings_from_environment()) << "\";\n"
                          << "extern \"C\" int ge_autofuse_abi() { return " << kAbiVersion << "; }\n"
                          << "extern \"C\" void ge_autofuse_run(const void* const* in, void* const* out) {\n"
                          << "  *static_cast<float*>(out[0]) = *static_cast<const float*>(in[0]) * 100.0f;\n}\n"
                          << "__attribute__((constructor)) static void mark() {\n"
                          << "  if (FILE* f = std::fopen(\"" << (root_ / "ran").string()
                          << "\", \"w\")) std::fclose(f);\n}\n";
    const std::string command = "c++ -shared -fPIC -o '" + path.string() + "' '" + source.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    if (checksum) append_checksum(path);
  }

  /// Appends the cache's checksum trailer to `path`.
  static void append_checksum(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(path, std::ios::binary | std::ios::app) << "\nge-autofuse-sha256:" << sha256_hex(content) << "\n";
  }

  /// Where kSource's kernel is cached.
  fs::path cached_object() { return cache_ / (cache_key(kSource, settings_from_environment()) + ".so"); }

  /// compile(kSource) gives the right kernel without trusting the cache, and says why.
  void expect_refused(const std::string& reason) {
    LogCapture log;
    Result<CompiledKernel> kernel = compile(kSource, settings_from_environment());
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
    EXPECT_FALSE(kernel.value().cache_hit);
    EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
    EXPECT_FALSE(fs::exists(root_ / "ran")) << "the planted library was loaded";
    EXPECT_NE(log.text().find(reason), std::string::npos) << log.text();
    EXPECT_NE(log.text().find("private temporary director"), std::string::npos) << log.text();
  }

  fs::path root_;
  fs::path cache_;
};

TEST_F(AutofuseCompilerTest, CacheHitsAfterTheFirstCompile) {
  CompilerSettings settings = settings_from_environment();
  EXPECT_EQ(settings.cache_dir, cache_);
  Result<CompiledKernel> first = compile(kSource, settings);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_FALSE(first.value().cache_hit);
  EXPECT_GT(first.value().compile_milliseconds, 0);
  EXPECT_EQ(run_kernel(first.value()), 6.0f);
  EXPECT_EQ(first.value().key.size(), 64u);  // the whole SHA-256
  const std::string key = first.value().key;
  EXPECT_EQ(names_in(cache_), (std::vector<std::string>{key + ".cc", key + ".so"}));  // no temporaries
  Result<CompiledKernel> second = compile(kSource, settings);
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second.value().cache_hit);
  EXPECT_EQ(second.value().key, key);
  // Another compiler or source is another key.
  settings.compiler = "g++";
  EXPECT_NE(cache_key(kSource, settings), key);
  EXPECT_NE(cache_key(std::string(kSource) + " ", settings_from_environment()), key);
  // So is the same compiler once upgraded (here: its file rewritten).
  settings.compiler = script("cxx", "exec c++ \"$@\"\n").string();
  const std::string before = cache_key(kSource, settings);
  EXPECT_EQ(cache_key(kSource, settings), before);
  fs::last_write_time(settings.compiler, fs::last_write_time(settings.compiler) + std::chrono::hours(1));
  EXPECT_NE(cache_key(kSource, settings), before);
}

TEST_F(AutofuseCompilerTest, CorruptCacheFileIsRebuilt) {
  fs::create_directories(cache_);
  std::ofstream(cached_object()) << "not an ELF file";
  Result<CompiledKernel> kernel = compile(kSource, settings_from_environment());
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_FALSE(kernel.value().cache_hit);
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
}

// Another kernel's valid object under this key (copied over it, or left by an older
// build) is recompiled, never used as a cache hit with the wrong results.
TEST_F(AutofuseCompilerTest, KernelOfAnotherKeyIsRecompiled) {
  const CompilerSettings settings = settings_from_environment();
  Result<CompiledKernel> other = compile(kOtherSource, settings);
  ASSERT_TRUE(other.is_ok()) << other.status().to_string();
  EXPECT_EQ(run_kernel(other.value()), 10.0f);
  // Copied, then renamed over the entry: overwriting in place would change the mapped
  // pages of a kernel this process has loaded.
  fs::copy_file(cache_ / (other.value().key + ".so"), root_ / "swap.so");
  fs::rename(root_ / "swap.so", cached_object());
  LogCapture log;
  Result<CompiledKernel> kernel = compile(kSource, settings);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_FALSE(kernel.value().cache_hit);
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  EXPECT_NE(log.text().find("cache entry " + cached_object().string() + " does not match its key: recompiling"),
            std::string::npos)
      << log.text();
  Result<CompiledKernel> again = compile(kSource, settings);
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again.value().cache_hit);
  EXPECT_EQ(run_kernel(again.value()), 6.0f);
}

// A kernel file of this user with the right key but without its checksum (damaged, or
// from an older GE) is never mapped.
TEST_F(AutofuseCompilerTest, EntryWithoutItsChecksumIsRebuiltUnloaded) {
  fs::create_directories(cache_);
  plant(cached_object(), /*checksum=*/false);
  LogCapture log;
  Result<CompiledKernel> kernel = compile(kSource, settings_from_environment());
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_FALSE(kernel.value().cache_hit);
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  EXPECT_FALSE(fs::exists(root_ / "ran")) << "the damaged library was loaded";
  EXPECT_NE(log.text().find("cache entry " + cached_object().string() +
                            " is damaged (its checksum does not match): recompiling"),
            std::string::npos)
      << log.text();
}

// Bit flips in a cached kernel (here its constant 3 made 100) or a truncation are caught
// by the checksum before the object is mapped.
TEST_F(AutofuseCompilerTest, DamagedEntriesAreRebuilt) {
  const CompilerSettings settings = settings_from_environment();
  ASSERT_TRUE(compile(kSource, settings).is_ok());
  std::string content;
  {
    std::ifstream in(cached_object(), std::ios::binary);
    content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string three("\x00\x00\x40\x40", 4), hundred("\x00\x00\xc8\x42", 4);  // 3.0f, 100.0f
  const size_t at = content.find(three);
  ASSERT_NE(at, std::string::npos);
  content.replace(at, 4, hundred);
  std::ofstream(root_ / "damaged.so", std::ios::binary) << content;
  fs::rename(root_ / "damaged.so", cached_object());  // not in place: this process has it mapped
  Result<CompiledKernel> flipped = compile(kSource, settings);
  ASSERT_TRUE(flipped.is_ok()) << flipped.status().to_string();
  EXPECT_FALSE(flipped.value().cache_hit);
  EXPECT_EQ(run_kernel(flipped.value()), 6.0f);

  std::ofstream(root_ / "truncated.so", std::ios::binary) << content.substr(0, content.size() / 2);
  fs::rename(root_ / "truncated.so", cached_object());
  Result<CompiledKernel> truncated = compile(kSource, settings);
  ASSERT_TRUE(truncated.is_ok()) << truncated.status().to_string();
  EXPECT_FALSE(truncated.value().cache_hit);
  EXPECT_EQ(run_kernel(truncated.value()), 6.0f);
  Result<CompiledKernel> again = compile(kSource, settings);
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again.value().cache_hit);
}

// A library without a key (an older GE's kernel, or the probe's evil.c) is not used either.
TEST_F(AutofuseCompilerTest, KernelWithoutAKeyIsRecompiled) {
  fs::create_directories(cache_);
  const fs::path source = root_ / "keyless.cc";
  std::ofstream(source) << "extern \"C\" int ge_autofuse_abi() { return 1; }\n"
                           "extern \"C\" void ge_autofuse_run(const void* const* in, void* const* out) {}\n";
  const std::string command = "c++ -shared -fPIC -o '" + cached_object().string() + "' '" + source.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  append_checksum(cached_object());
  LogCapture log;
  Result<CompiledKernel> kernel = compile(kSource, settings_from_environment());
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_FALSE(kernel.value().cache_hit);
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  EXPECT_NE(log.text().find("does not match its key: recompiling"), std::string::npos) << log.text();
}

TEST_F(AutofuseCompilerTest, CacheWritableByOthersIsRefused) {
  fs::create_directories(cache_);
  plant(cached_object());
  fs::permissions(cache_, fs::perms::all);  // 0777
  expect_refused("not using the kernel cache " + cache_.string() + ": " + cache_.string() +
                 " is writable by group or others (mode 0777)");
  EXPECT_TRUE(fs::exists(cached_object()));  // not ours to remove
}

TEST_F(AutofuseCompilerTest, StickyCacheWritableByOthersIsRefused) {
  fs::create_directories(cache_);
  plant(cached_object());
  ASSERT_EQ(::chmod(cache_.c_str(), 01777), 0);
  expect_refused("is writable by group or others (mode 1777)");
}

TEST_F(AutofuseCompilerTest, CacheUnderADirectoryWritableByOthersIsRefused) {
  const fs::path shared = root_ / "shared";
  fs::create_directories(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 0777), 0);  // anyone may rename cache/ away and put theirs
  cache_ = shared / "cache";
  ::setenv("GE_AUTOFUSE_CACHE_DIR", cache_.c_str(), 1);
  fs::create_directories(cache_);
  ASSERT_EQ(::chmod(cache_.c_str(), 0700), 0);
  plant(cached_object());
  expect_refused(shared.string() + " above it is writable by group or others (mode 0777)");
}

TEST_F(AutofuseCompilerTest, CachedFileWritableByOthersIsRefused) {
  fs::create_directories(cache_);
  plant(cached_object());
  ASSERT_EQ(::chmod(cached_object().c_str(), 0646), 0);  // o+w
  expect_refused("not loading a cached kernel: " + cached_object().string() +
                 " is writable by group or others (mode 0646)");
}

TEST_F(AutofuseCompilerTest, CachedSymbolicLinkIsRefused) {
  fs::create_directories(cache_);
  plant(root_ / "elsewhere.so");
  fs::create_symlink(root_ / "elsewhere.so", cached_object());
  expect_refused("cannot open " + cached_object().string() + ": Too many levels of symbolic links");
}

TEST_F(AutofuseCompilerTest, CachedFileOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  fs::create_directories(cache_);
  plant(cached_object());
  ASSERT_EQ(::chown(cached_object().c_str(), 65534, 65534), 0);
  expect_refused(cached_object().string() + " is owned by uid 65534, not by this user (uid 0)");
}

TEST_F(AutofuseCompilerTest, CacheOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  fs::create_directories(cache_);
  plant(cached_object());
  ASSERT_EQ(::chown(cached_object().c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown(cache_.c_str(), 65534, 65534), 0);
  expect_refused(cache_.string() + " is owned by uid 65534, not by this user (uid 0)");
}

TEST_F(AutofuseCompilerTest, CreatedCacheDirectoriesAndFilesArePrivate) {
  cache_ = root_ / "a" / "b" / "c";
  ::setenv("GE_AUTOFUSE_CACHE_DIR", cache_.c_str(), 1);
  const mode_t umask_before = ::umask(0);  // the most permissive umask
  Result<CompiledKernel> kernel = compile(kSource, settings_from_environment());
  ::umask(umask_before);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(mode_of(root_ / "a"), 0700u);
  EXPECT_EQ(mode_of(root_ / "a" / "b"), 0700u);
  EXPECT_EQ(mode_of(cache_), 0700u);
  EXPECT_EQ(mode_of(cached_object()) & 022, 0u);
  EXPECT_EQ(mode_of(cache_ / (kernel.value().key + ".cc")) & 077, 0u);
  Result<CompiledKernel> again = compile(kSource, settings_from_environment());
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again.value().cache_hit);  // what it wrote passes its own checks
}

// Services and cron jobs run without HOME or XDG_CACHE_HOME: the cache is then never a
// shared folder under the temporary directory.
TEST_F(AutofuseCompilerTest, DefaultCacheIsPerUser) {
  ::unsetenv("GE_AUTOFUSE_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const std::string saved_home = home != nullptr ? home : "";
  ::unsetenv("HOME");
  ::unsetenv("XDG_CACHE_HOME");
  const fs::path dir = settings_from_environment().cache_dir;
  if (!saved_home.empty()) ::setenv("HOME", saved_home.c_str(), 1);
  EXPECT_NE(dir, fs::temp_directory_path() / "ge-autofuse");
  if (!dir.empty()) {
    EXPECT_EQ(dir.filename(), "autofuse") << dir;
    EXPECT_NE(dir.string().rfind(fs::temp_directory_path().string(), 0), 0u) << dir;
  }
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);  // the XDG spec: relative paths are ignored
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(settings_from_environment().cache_dir, fs::path("/home/someone/.cache/ge/autofuse"));
  ::unsetenv("XDG_CACHE_HOME");
  if (saved_home.empty()) {
    ::unsetenv("HOME");
  } else {
    ::setenv("HOME", saved_home.c_str(), 1);
  }
}

// Without a cache each kernel compiles in a private directory that is gone afterwards.
TEST_F(AutofuseCompilerTest, WithoutACacheNothingIsLeftBehind) {
  const fs::path temporary = root_ / "tmp";
  fs::create_directories(temporary);
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir != nullptr ? tmpdir : "";
  ::setenv("TMPDIR", temporary.c_str(), 1);
  CompilerSettings settings = settings_from_environment();
  settings.cache_dir.clear();
  Result<CompiledKernel> kernel = compile(kSource, settings);
  Result<CompiledKernel> again = compile(kSource, settings);
  if (saved.empty()) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", saved.c_str(), 1);
  }
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_FALSE(again.value().cache_hit);
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  EXPECT_EQ(run_kernel(again.value()), 6.0f);
  EXPECT_TRUE(names_in(temporary).empty());
}

TEST_F(AutofuseCompilerTest, MissingCompilerIsAClearError) {
  CompilerSettings settings = settings_from_environment();
  settings.compiler = "ge-no-such-compiler";
  Result<CompiledKernel> kernel = compile(kSource, settings);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("no C++ compiler"), std::string::npos) << kernel.status().message();
  EXPECT_TRUE(names_in(cache_).empty());
}

TEST_F(AutofuseCompilerTest, CompilerErrorsAndTimeoutsAreReported) {
  CompilerSettings settings = settings_from_environment();
  Result<CompiledKernel> broken = compile("this is not C++", settings);
  ASSERT_FALSE(broken.is_ok());
  EXPECT_NE(broken.status().message().find("the compiler failed"), std::string::npos) << broken.status().message();
  settings.compiler = script("slow-compiler.sh", "sleep 5\n").string();
  settings.timeout = std::chrono::milliseconds(200);
  Result<CompiledKernel> timed_out = compile(kSource, settings);
  ASSERT_FALSE(timed_out.is_ok());
  EXPECT_NE(timed_out.status().message().find("timed out after 200 ms"), std::string::npos)
      << timed_out.status().message();
  EXPECT_TRUE(names_in(cache_).empty());  // no source, log or partial object left
}

bool process_is_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  // Killed but not yet reaped by its new parent (in a container, maybe never): a zombie.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// A compiler driver runs cc1plus, as and ld as children: a timeout kills them all.
TEST_F(AutofuseCompilerTest, TimeoutKillsTheCompilersChildren) {
  const fs::path pid_file = root_ / "child.pid";
  CompilerSettings settings = settings_from_environment();
  settings.compiler =
      script("forking-compiler.sh", "sleep 30 &\necho $! > '" + pid_file.string() + "'\nwait\n").string();
  settings.timeout = std::chrono::milliseconds(1000);  // time for the script to write its child's pid
  Result<CompiledKernel> timed_out = compile(kSource, settings);
  ASSERT_FALSE(timed_out.is_ok());
  EXPECT_NE(timed_out.status().message().find("timed out"), std::string::npos) << timed_out.status().message();
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = process_is_gone(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the compiler's child " << child << " outlived the timeout";
  if (!gone) ::kill(child, SIGKILL);
}

TEST(AutofuseCompileTimeout, ParsesSecondsAndClampsOrRefusesTheRest) {
  using std::chrono::milliseconds;
  EXPECT_EQ(parse_compile_timeout("2").value(), milliseconds(2000));
  EXPECT_EQ(parse_compile_timeout("0.25").value(), milliseconds(250));
  EXPECT_EQ(parse_compile_timeout("1e-9").value(), milliseconds(1));
  EXPECT_EQ(parse_compile_timeout("60 ").value(), milliseconds(60000));
  EXPECT_EQ(parse_compile_timeout("1e30").value(), kMaxCompileTimeout);
  EXPECT_EQ(parse_compile_timeout("inf").value(), kMaxCompileTimeout);
  EXPECT_EQ(parse_compile_timeout("9223372036854775807").value(), kMaxCompileTimeout);
  for (const char* bad : {"nan", "-1", "-inf", "0", "", "abc", "5s", "1e30x"}) {
    Result<milliseconds> parsed = parse_compile_timeout(bad);
    ASSERT_FALSE(parsed.is_ok()) << bad;
    EXPECT_NE(parsed.status().message().find(std::string("GE_AUTOFUSE_COMPILE_TIMEOUT='") + bad +
                                             "' is not a positive number of seconds"),
              std::string::npos)
        << parsed.status().message();
  }
}

TEST(AutofuseCompileTimeout, EnvironmentNeverGivesANegativeTimeout) {
  for (const char* text : {"1e30", "inf", "nan", "-5", "garbage"}) {
    ::setenv("GE_AUTOFUSE_COMPILE_TIMEOUT", text, 1);
    const std::chrono::milliseconds timeout = settings_from_environment().timeout;
    EXPECT_GT(timeout.count(), 0) << text;
    EXPECT_LE(timeout, kMaxCompileTimeout) << text;
  }
  ::setenv("GE_AUTOFUSE_COMPILE_TIMEOUT", "garbage", 1);
  EXPECT_EQ(settings_from_environment().timeout, std::chrono::milliseconds(60000));
  ::unsetenv("GE_AUTOFUSE_COMPILE_TIMEOUT");
}

// A compiler that exits 0 without writing the object: the error says so (it said
// "cannot move the kernel into the cache: Success") and the source is not left behind.
TEST_F(AutofuseCompilerTest, CompilerThatWritesNothingIsReported) {
  CompilerSettings settings = settings_from_environment();
  settings.compiler = script("noop-compiler.sh", "exit 0\n").string();
  Result<CompiledKernel> kernel = compile(kSource, settings);
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_NE(kernel.status().message().find("exited 0 but wrote no kernel"), std::string::npos)
      << kernel.status().message();
  EXPECT_TRUE(names_in(cache_).empty());
}

// The rename into the cache fails (here a directory is in the way): the log gives the
// real reason, the kernel is still used, and no temporary is left.
TEST_F(AutofuseCompilerTest, FailedMoveIntoTheCacheSaysWhy) {
  CompilerSettings settings = settings_from_environment();
  settings.compiler = script("blocking-compiler.sh",
                             "for a in \"$@\"; do [ \"$previous\" = -o ] && out=$a; previous=$a; done\n"
                             "c++ \"$@\" || exit 1\n"
                             "name=$(basename \"$out\")\n"
                             "mkdir -p \"$(dirname \"$out\")/${name%%.*}.so/in-the-way\"\n")
                          .string();
  const std::string key = cache_key(kSource, settings);
  LogCapture log;
  Result<CompiledKernel> kernel = compile(kSource, settings);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  EXPECT_NE(log.text().find("cannot move the kernel into the cache"), std::string::npos) << log.text();
  EXPECT_NE(log.text().find("Is a directory"), std::string::npos) << log.text();
  EXPECT_EQ(names_in(cache_), std::vector<std::string>{key + ".so"});  // only the directory in the way
}

// Two processes compiling the same kernel into an empty cache at once both get a
// working kernel, and the cache holds one complete object.
TEST_F(AutofuseCompilerTest, ProcessesRacingToCompileAreSafe) {
  const CompilerSettings settings = settings_from_environment();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<CompiledKernel> kernel = compile(kSource, settings);
    std::_Exit(kernel.is_ok() && run_kernel(kernel.value()) == 6.0f ? 0 : 1);
  }
  Result<CompiledKernel> kernel = compile(kSource, settings);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().to_string();
  EXPECT_EQ(run_kernel(kernel.value()), 6.0f);
  Result<CompiledKernel> again = compile(kSource, settings);
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again.value().cache_hit);
  const std::string key = again.value().key;
  EXPECT_EQ(names_in(cache_), (std::vector<std::string>{key + ".cc", key + ".so"}));
}

}  // namespace
}  // namespace ge::cpu_autofuse
