#include "ge/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ge {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The names in `folder`, to show no temporary is left behind.
std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("ge_atomic_file_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST_F(AtomicFileTest, WritesANewFileAndLeavesNoTemporary) {
  const fs::path file = folder_ / "model.gem";
  ASSERT_TRUE(write_file_atomically(file, "hello").is_ok());
  EXPECT_EQ(read_all(file), "hello");
  EXPECT_EQ(names_in(folder_), std::vector<std::string>{"model.gem"});
}

TEST_F(AtomicFileTest, ReplacesAFileKeepingItsPermissions) {
  const fs::path file = folder_ / "out.pb";
  std::ofstream(file) << "old contents, longer than the new";
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(write_file_atomically(file, "new").is_ok());
  EXPECT_EQ(read_all(file), "new");
  EXPECT_EQ(fs::status(file).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(names_in(folder_), std::vector<std::string>{"out.pb"});
}

// Issue 36 item 10: a write that fails part way (a full disk, here the file size limit)
// destroyed the previous good file and left a truncated one under its name.
TEST_F(AtomicFileTest, AFailedWriteKeepsThePreviousFileAndSaysWhy) {
  const fs::path file = folder_ / "model.gem";
  std::ofstream(file) << "the previous good file";
  std::signal(SIGXFSZ, SIG_IGN);  // a write past RLIMIT_FSIZE then fails with EFBIG
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status status = write_file_atomically(file, std::string(1 << 20, 'x'));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, SIG_DFL);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.message(), "cannot write '" + file.string() + "': File too large (the previous file is kept)");
  EXPECT_EQ(read_all(file), "the previous good file");
  EXPECT_EQ(names_in(folder_), std::vector<std::string>{"model.gem"}) << "the temporary is removed";
}

TEST_F(AtomicFileTest, AMissingFolderIsAnErrorNamingTheFile) {
  const fs::path file = folder_ / "no_such_dir" / "m.onnx";
  const Status status = write_file_atomically(file, "x");
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "cannot write '" + file.string() +
                                  "': cannot create a temporary file beside it: No such file or directory");
}

TEST_F(AtomicFileTest, ADirectoryIsRefused) {
  const Status status = write_file_atomically(folder_, "x");
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("it is a directory"), std::string::npos) << status.message();
}

TEST_F(AtomicFileTest, ASymbolicLinkKeepsPointingAtTheReplacedFile) {
  const fs::path target = folder_ / "real.npy";
  const fs::path link = folder_ / "link.npy";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  ASSERT_TRUE(write_file_atomically(link, "new").is_ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_all(target), "new");
}

TEST_F(AtomicFileTest, ADeviceIsWrittenInPlace) {
  ASSERT_TRUE(write_file_atomically("/dev/null", "discarded").is_ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace ge
