#include "ge/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <string>
#include <system_error>

namespace ge {
namespace {

namespace fs = std::filesystem;

std::string reason(int error) { return std::generic_category().message(error); }

Status cannot_write(const fs::path& path, const std::string& what) {
  return invalid_argument("cannot write '" + path.string() + "': " + what);
}

/// Writes every byte to `fd`; 0 or the errno of the failed write.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), std::min<size_t>(bytes.size(), size_t{1} << 30));
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return 0;
}

Status write_in_place(const fs::path& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return cannot_write(path, reason(errno));
  const int error = write_all(fd, bytes);
  const int closed = ::close(fd) == 0 ? 0 : errno;
  if (error != 0 || closed != 0) return cannot_write(path, reason(error != 0 ? error : closed));
  return Status::ok();
}

/// The temporary's name: hidden, beside the target, unique per process and call, short
/// enough for NAME_MAX whatever the target's name.
fs::path temporary_name(const fs::path& target) {
  static std::atomic<uint64_t> counter{0};
  std::string stem = target.filename().string();
  if (stem.size() > 200) stem.resize(200);
  return target.parent_path() / ("." + stem + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

}  // namespace

Status write_file_atomically(const fs::path& path, std::string_view bytes) {
  if (path.empty() || !path.has_filename()) return cannot_write(path, "not a file name");
  fs::path target = path;
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (!exists && errno != ENOENT) return cannot_write(path, reason(errno));
  if (exists) {
    if (S_ISDIR(existing.st_mode)) return cannot_write(path, "it is a directory");
    if (!S_ISREG(existing.st_mode)) return write_in_place(path, bytes);  // /dev/null, a FIFO
    std::error_code error;
    if (fs::is_symlink(path, error)) {
      target = fs::canonical(path, error);
      if (error) return cannot_write(path, "cannot resolve the symbolic link: " + error.message());
    }
  }

  fs::path temporary;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    temporary = temporary_name(target);
    // 0666 before the umask, as a plain create would give.
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) {
      return cannot_write(path, "cannot create a temporary file beside it: " + reason(errno));
    }
  }
  if (fd < 0) return cannot_write(path, "cannot create a temporary file beside it: every name is taken");

  // From here on every failure removes the temporary and leaves `path` as it was.
  auto fail = [&](const std::string& what, int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    return cannot_write(path, what + reason(error) + (exists ? " (the previous file is kept)" : ""));
  };
  if (exists) {
    // Keep the replaced file's permissions (and owner, where allowed).
    if (::fchmod(fd, existing.st_mode & 07777) != 0) return fail("cannot set the permissions: ", errno);
    if (::fchown(fd, existing.st_uid, existing.st_gid) != 0) {
      // Only root may give a file away: the new file is then the writer's own.
    }
  }
  if (const int error = write_all(fd, bytes); error != 0) return fail("", error);
  if (::fsync(fd) != 0 && errno != EINVAL) return fail("cannot flush to disk: ", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("", errno);
  if (::rename(temporary.c_str(), target.c_str()) != 0) return fail("cannot replace it: ", errno);
  // The rename itself is durable once the folder is flushed; best effort (not every file
  // system can fsync a directory).
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::ok();
}

}  // namespace ge
