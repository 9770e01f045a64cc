#include "zip_archive.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace ge::tools {
namespace {

// Offsets in an archive of one member named "m" (serialize_zip writes no extra fields for
// small members): local header at 0, its data at 31, then the central directory.
constexpr size_t kLocalMethod = 8;
constexpr size_t kLocalData = 31;

std::string one_member(const std::string& data, bool deflate) {
  Result<std::string> bytes = serialize_zip({{"m", data}}, deflate);
  EXPECT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  return bytes.is_ok() ? *bytes : std::string();
}

size_t central_entry(const std::string& zip) { return zip.find(std::string("PK\x01\x02", 4)); }

std::string error_of(const std::string& bytes) {
  Result<std::vector<ZipMember>> members = parse_zip(bytes, "t.zip");
  EXPECT_FALSE(members.is_ok());
  return members.is_ok() ? std::string() : members.status().message();
}

TEST(ZipArchiveTest, RoundTrip) {
  const std::string big(100000, 'z');
  for (bool deflate : {false, true}) {
    Result<std::string> bytes = serialize_zip({{"a", "hello"}, {"b/c", big}, {"empty", ""}}, deflate);
    ASSERT_TRUE(bytes.is_ok());
    if (deflate) {
      EXPECT_LT(bytes->size(), big.size() / 10);
    }
    Result<std::vector<ZipMember>> members = parse_zip(*bytes, "t.zip");
    ASSERT_TRUE(members.is_ok()) << members.status().to_string();
    ASSERT_EQ(members->size(), 3u);
    EXPECT_EQ((*members)[0].name, "a");
    EXPECT_EQ((*members)[0].data, "hello");
    EXPECT_EQ((*members)[1].name, "b/c");
    EXPECT_EQ((*members)[1].data, big);
    EXPECT_EQ((*members)[2].data, "");
  }
}

TEST(ZipArchiveTest, RefusesTruncatedAndForeignFiles) {
  EXPECT_EQ(error_of(""), "'t.zip' is not a valid zip archive: too short for an end-of-central-directory record");
  EXPECT_EQ(error_of(std::string(100, 'x')),
            "'t.zip' is not a valid zip archive: no end-of-central-directory record (a truncated file, or not a zip)");
  const std::string zip = one_member("hello world", false);
  EXPECT_NE(error_of(zip.substr(0, zip.size() - 5)).find("no end-of-central-directory record"), std::string::npos);
  // Cut out the data: the directory now points past the file.
  std::string cut = zip;
  cut.erase(kLocalData, 11);
  EXPECT_NE(error_of(cut).find("is not a valid zip archive"), std::string::npos);
}

TEST(ZipArchiveTest, ChecksCrc) {
  std::string zip = one_member("hello world", false);
  zip[kLocalData] = 'H';
  EXPECT_EQ(error_of(zip), "'t.zip' is not a valid zip archive: member 'm' fails its CRC-32 check");
}

TEST(ZipArchiveTest, RefusesCorruptDeflate) {
  std::string zip = one_member(std::string(1000, 'a') + "bcdefg", true);
  for (size_t i = kLocalData; i < kLocalData + 4; ++i) zip[i] = static_cast<char>(0xff);
  EXPECT_NE(error_of(zip).find("member 'm' of 't.zip': corrupt deflate stream"), std::string::npos) << error_of(zip);
}

TEST(ZipArchiveTest, RefusesSizesDeflateCannotGive) {
  std::string zip = one_member("abc", true);
  const size_t entry = central_entry(zip);
  const uint32_t huge = 0xF0000000;
  std::memcpy(&zip[entry + 24], &huge, 4);  // uncompressed size
  EXPECT_NE(error_of(zip).find("claims 4026531840 bytes from"), std::string::npos) << error_of(zip);
}

TEST(ZipArchiveTest, RefusesOtherMethodsAndEncryption) {
  std::string zip = one_member("abc", false);
  const size_t entry = central_entry(zip);
  zip[entry + 10] = 12;  // bzip2
  zip[kLocalMethod] = 12;
  EXPECT_EQ(error_of(zip),
            "member 'm' of 't.zip' uses compression method 12; only stored (0) and deflate (8) are supported");
  zip = one_member("abc", false);
  zip[entry + 8] = 1;  // encrypted
  EXPECT_EQ(error_of(zip), "member 'm' of 't.zip' is encrypted, which is not supported");
}

TEST(ZipArchiveTest, RefusesADirectoryPointingNowhere) {
  std::string zip = one_member("abc", false);
  const size_t entry = central_entry(zip);
  const uint32_t offset = 7;
  std::memcpy(&zip[entry + 42], &offset, 4);
  EXPECT_EQ(error_of(zip),
            "'t.zip' is not a valid zip archive: member 'm' has no local header where the directory points");
}

// Every truncation and every single-byte corruption of a small archive is an error or a
// result, never a crash or a read out of bounds (run under the sanitizer presets).
TEST(ZipArchiveTest, SurvivesCorruption) {
  for (bool deflate : {false, true}) {
    const std::string zip = *serialize_zip({{"a.npy", "hello hello hello"}, {"b", "world"}}, deflate);
    for (size_t size = 0; size < zip.size(); ++size) (void)parse_zip(zip.substr(0, size), "t.zip");
    for (size_t at = 0; at < zip.size(); ++at) {
      for (unsigned char value : {0x00, 0x7f, 0xff}) {
        std::string bad = zip;
        bad[at] = static_cast<char>(value);
        (void)parse_zip(bad, "t.zip");
      }
    }
  }
}

}  // namespace
}  // namespace ge::tools
