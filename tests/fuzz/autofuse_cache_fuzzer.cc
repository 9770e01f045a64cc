// libFuzzer target: the cpu backend's autofusion cache loader. The input becomes the cached
// entry under one kernel's key in a private cache: its own bytes, or the valid entry patched
// with them or cut short, or the valid entry untouched; as a file of some mode, a symbolic
// link, a FIFO or a directory, or in a cache that others may write. compile() must then
// give that kernel (x * 3) or an error -- never a crash, a hang or another kernel's result
// -- and a cache hit only for the untouched valid entry in a trusted place.
//
// Input: byte 0 = kind (bits 0-1: 0 raw bytes, 1 valid entry patched at offset, 2 valid
// entry truncated, 3 valid entry) | form << 2 (bits 2-4, see Form); bytes 1-4 = offset or
// length (little-endian, modulo the entry's size); the rest = raw bytes or the patch.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "autofuse_compiler.h"
#include "ge/logging.h"

namespace {

namespace fs = std::filesystem;
using ge::cpu_autofuse::CompiledKernel;
using ge::cpu_autofuse::CompilerSettings;

const char* kSource =
    "extern \"C\" int ge_autofuse_abi() { return 1; }\n"
    "extern \"C\" void ge_autofuse_run(const void* const* in, void* const* out) {\n"
    "  *static_cast<float*>(out[0]) = *static_cast<const float*>(in[0]) * 3.0f;\n}\n";

enum Form { kFile0644, kFile0600, kFileOthersWrite, kFileGroupWrite, kSymlink, kFifo, kDirectory, kSharedCache };

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "autofuse cache fuzzer: %s\n", what.c_str());
  std::abort();
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

float run(const CompiledKernel& kernel) {
  const float x = 2.0f;
  float y = 0.0f;
  const void* in[] = {&x};
  void* out[] = {&y};
  kernel.run(in, out);
  return y;
}

/// A scratch folder, a "compiler" that copies a kernel prebuilt once with the right key
/// (so a miss costs a copy, not a compile), and the valid cache entry it gives.
struct Setup {
  fs::path root, cache, target;
  CompilerSettings settings;
  std::string key, valid_entry;

  Setup() {
    ge::set_log_level("error");  // refusals and rebuilds are the expected outcome here
    std::string pattern = (fs::temp_directory_path() / "ge-fuzz-autofuse.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) fail("mkdtemp failed");
    root = pattern;
    cache = root / "cache";
    target = root / "elsewhere.so";
    const fs::path prebuilt = root / "prebuilt.so", compiler = root / "copying-cxx";
    std::ofstream(compiler) << "#!/bin/sh\nfor a; do [ \"$p\" = -o ] && o=$a; p=$a; done\nexec cp '"
                            << prebuilt.string() << "' \"$o\"\n";
    fs::permissions(compiler, fs::perms::owner_all);
    settings.compiler = compiler.string();
    settings.cache_dir = cache;
    settings.timeout = std::chrono::seconds(30);
    key = ge::cpu_autofuse::cache_key(kSource, settings);
    const fs::path source = root / "kernel.cc";
    std::ofstream(source) << kSource << "extern \"C\" const char ge_autofuse_key[] = \"" << key << "\";\n";
    const std::string command = "c++ -shared -fPIC -O1 -o '" + prebuilt.string() + "' '" + source.string() + "'";
    if (std::system(command.c_str()) != 0) fail("cannot build the kernel: " + command);
    ge::Result<CompiledKernel> first = ge::cpu_autofuse::compile(kSource, settings);
    if (!first.is_ok()) fail("the first compile failed: " + first.status().message());
    valid_entry = read_all(cache / (key + ".so"));
  }
  ~Setup() {
    std::error_code error;
    fs::remove_all(root, error);
  }
};

uint32_t little_endian(const uint8_t* bytes) {
  return bytes[0] | (uint32_t{bytes[1]} << 8) | (uint32_t{bytes[2]} << 16) | (uint32_t{bytes[3]} << 24);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup setup;
  if (size < 1) return 0;
  const int kind = data[0] & 3;
  const auto form = static_cast<Form>((data[0] >> 2) & 7);
  const uint32_t number = size >= 5 ? little_endian(data + 1) : 0;
  const std::string rest = size >= 5 ? std::string(reinterpret_cast<const char*>(data + 5), size - 5)
                                     : std::string(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string entry;
  switch (kind) {
    case 0:
      entry = rest;
      break;
    case 1: {
      entry = setup.valid_entry;
      const size_t at = number % entry.size();
      entry.replace(at, std::min(rest.size(), entry.size() - at), rest.substr(0, entry.size() - at));
      break;
    }
    case 2:
      entry = setup.valid_entry.substr(0, number % setup.valid_entry.size());
      break;
    default:
      entry = setup.valid_entry;
      break;
  }

  std::error_code error;
  fs::remove_all(setup.cache, error);
  fs::remove(setup.target, error);
  fs::create_directory(setup.cache);
  fs::permissions(setup.cache, fs::perms::owner_all);
  const fs::path object = setup.cache / (setup.key + ".so");
  const fs::path written = form == kSymlink ? setup.target : object;
  if (form == kFifo) {
    ::mkfifo(object.c_str(), 0600);
  } else if (form == kDirectory) {
    fs::create_directory(object);
  } else {
    std::ofstream(written, std::ios::binary) << entry;
    const mode_t modes[] = {0644, 0600, 0646, 0664};
    ::chmod(written.c_str(), form < 4 ? modes[form] : 0644);
    if (form == kSymlink) fs::create_symlink(setup.target, object);
    if (form == kSharedCache) ::chmod(setup.cache.c_str(), 0777);
  }

  ge::Result<CompiledKernel> kernel = ge::cpu_autofuse::compile(kSource, setup.settings);
  ::chmod(setup.cache.c_str(), 0700);
  if (!kernel.is_ok()) fail("no kernel: " + kernel.status().message());  // the copying compiler never fails
  const float y = run(kernel.value());
  if (y != 6.0f) fail("wrong result " + std::to_string(y));
  const bool trusted_place = form == kFile0644 || form == kFile0600;
  const bool valid = trusted_place && entry == setup.valid_entry;
  if (kernel.value().cache_hit != valid) {
    fail(valid ? "the valid entry was not a cache hit"
               : "a cache hit on an entry that is not the valid one in a trusted place");
  }
  return 0;
}
