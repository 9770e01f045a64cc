#include "npz.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "npy.h"
#include "zip_archive.h"

namespace ge::tools {
namespace {

// np.savez(f, x=np.array([1, 2, 3], np.int32), y=np.array([[1.5]], np.float32)) from
// numpy 1.24: stored members whose local headers carry ZIP64 extra fields.
constexpr char kSavez[] =
    "\x50\x4b\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x21\x00\xeb\xc0\x2b\x04\x8c\x00\x00\x00\x8c\x00\x00\x00\x05\x00"
    "\x14\x00\x78\x2e\x6e\x70\x79\x01\x00\x10\x00\x8c\x00\x00\x00\x00\x00\x00\x00\x8c\x00\x00\x00\x00\x00\x00\x00\x93"
    "\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x69\x34\x27\x2c\x20\x27\x66"
    "\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65"
    "\x27\x3a\x20\x28\x33\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x50"
    "\x4b\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x21\x00\xf9\x3c\x6c\x13\x84\x00\x00\x00\x84\x00\x00\x00\x05\x00\x14"
    "\x00\x79\x2e\x6e\x70\x79\x01\x00\x10\x00\x84\x00\x00\x00\x00\x00\x00\x00\x84\x00\x00\x00\x00\x00\x00\x00\x93\x4e"
    "\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x34\x27\x2c\x20\x27\x66\x6f"
    "\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27"
    "\x3a\x20\x28\x31\x2c\x20\x31\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\xc0\x3f\x50\x4b\x01\x02\x14\x03\x14\x00\x00\x00"
    "\x00\x00\x00\x00\x21\x00\xeb\xc0\x2b\x04\x8c\x00\x00\x00\x8c\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x80\x01\x00\x00\x00\x00\x78\x2e\x6e\x70\x79\x50\x4b\x01\x02\x14\x03\x14\x00\x00\x00\x00\x00\x00\x00\x21"
    "\x00\xf9\x3c\x6c\x13\x84\x00\x00\x00\x84\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01\xc3"
    "\x00\x00\x00\x79\x2e\x6e\x70\x79\x50\x4b\x05\x06\x00\x00\x00\x00\x02\x00\x02\x00\x66\x00\x00\x00\x7e\x01\x00\x00"
    "\x00\x00";
// np.savez_compressed(f, np.array([True, False]), np.arange(6).reshape(2, 3)): deflated
// members with numpy's positional names arr_0, arr_1.
constexpr char kSavezCompressed[] =
    "\x50\x4b\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x21\x00\xee\x19\xbb\x5d\x46\x00\x00\x00\x82\x00\x00\x00\x09\x00"
    "\x14\x00\x61\x72\x72\x5f\x30\x2e\x6e\x70\x79\x01\x00\x10\x00\x82\x00\x00\x00\x00\x00\x00\x00\x46\x00\x00\x00\x00"
    "\x00\x00\x00\x9b\xec\x17\xea\x1b\x10\xc9\xc8\x50\xc6\x50\xad\x9e\x92\x5a\x9c\x5c\xa4\x6e\xa5\xa0\x5e\x93\x64\xa8"
    "\xae\xa3\xa0\x9e\x96\x5f\x54\x52\x94\x98\x17\x9f\x5f\x94\x92\x0a\x12\x77\x4b\xcc\x29\x4e\x05\x8a\x17\x67\x24\x16"
    "\xa4\x02\xf9\x1a\x46\x3a\x9a\x3a\x0a\xb5\x0a\x14\x00\x2e\x46\x06\x00\x50\x4b\x03\x04\x14\x00\x00\x00\x08\x00\x00"
    "\x00\x21\x00\x59\x9b\xda\x7d\x56\x00\x00\x00\xb0\x00\x00\x00\x09\x00\x14\x00\x61\x72\x72\x5f\x31\x2e\x6e\x70\x79"
    "\x01\x00\x10\x00\xb0\x00\x00\x00\x00\x00\x00\x00\x56\x00\x00\x00\x00\x00\x00\x00\x9b\xec\x17\xea\x1b\x10\xc9\xc8"
    "\x50\xc6\x50\xad\x9e\x92\x5a\x9c\x5c\xa4\x6e\xa5\xa0\x6e\x93\x69\xa1\xae\xa3\xa0\x9e\x96\x5f\x54\x52\x94\x98\x17"
    "\x9f\x5f\x94\x92\x0a\x12\x77\x4b\xcc\x29\x4e\x05\x8a\x17\x67\x24\x16\xa4\x02\xf9\x1a\x46\x3a\x0a\xc6\x9a\x3a\x0a"
    "\xb5\x0a\x64\x03\x2e\x06\x28\x60\x84\xd2\x4c\x50\x9a\x19\x4a\xb3\x40\x69\x56\x28\x0d\x00\x50\x4b\x01\x02\x14\x03"
    "\x14\x00\x00\x00\x08\x00\x00\x00\x21\x00\xee\x19\xbb\x5d\x46\x00\x00\x00\x82\x00\x00\x00\x09\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x80\x01\x00\x00\x00\x00\x61\x72\x72\x5f\x30\x2e\x6e\x70\x79\x50\x4b\x01\x02\x14\x03\x14"
    "\x00\x00\x00\x08\x00\x00\x00\x21\x00\x59\x9b\xda\x7d\x56\x00\x00\x00\xb0\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x80\x01\x81\x00\x00\x00\x61\x72\x72\x5f\x31\x2e\x6e\x70\x79\x50\x4b\x05\x06\x00\x00\x00\x00"
    "\x02\x00\x02\x00\x6e\x00\x00\x00\x12\x01\x00\x00\x00\x00";

std::string bytes_of(const char* literal, size_t size) { return std::string(literal, size - 1); }

TEST(NpzTest, ReadsNumpySavez) {
  Result<NamedArrays> arrays = parse_npz(bytes_of(kSavez, sizeof(kSavez)), "a.npz");
  ASSERT_TRUE(arrays.is_ok()) << arrays.status().to_string();
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ((*arrays)[0].first, "x");
  EXPECT_EQ((*arrays)[0].second.dtype(), DataType::kInt32);
  EXPECT_EQ((*arrays)[0].second.data<int32_t>()[2], 3);
  EXPECT_EQ((*arrays)[1].first, "y");
  EXPECT_EQ((*arrays)[1].second.shape(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ((*arrays)[1].second.data<float>()[0], 1.5f);
}

TEST(NpzTest, ReadsNumpySavezCompressed) {
  Result<NamedArrays> arrays = parse_npz(bytes_of(kSavezCompressed, sizeof(kSavezCompressed)), "b.npz");
  ASSERT_TRUE(arrays.is_ok()) << arrays.status().to_string();
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ((*arrays)[0].first, "arr_0");
  EXPECT_EQ((*arrays)[0].second.dtype(), DataType::kBool);
  EXPECT_EQ((*arrays)[1].first, "arr_1");
  EXPECT_EQ((*arrays)[1].second.dtype(), DataType::kInt64);
  EXPECT_EQ((*arrays)[1].second.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*arrays)[1].second.data<int64_t>()[5], 5);
}

TEST(NpzTest, RoundTripsStoredAndDeflated) {
  const NamedArrays arrays = {{"a", Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4})},
                              {"dir/b", Tensor::from_vector<int64_t>({0}, {})}};
  for (bool compress : {false, true}) {
    Result<std::string> bytes = serialize_npz(arrays, compress);
    ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
    Result<NamedArrays> back = parse_npz(*bytes, "c.npz");
    ASSERT_TRUE(back.is_ok()) << back.status().to_string();
    ASSERT_EQ(back->size(), 2u);
    EXPECT_EQ((*back)[0].first, "a");
    EXPECT_EQ((*back)[0].second.data<float>()[3], 4.0f);
    EXPECT_EQ((*back)[1].first, "dir/b");
    EXPECT_EQ((*back)[1].second.element_count(), 0);
  }
}

TEST(NpzTest, RefusesWhatIsNotAnArchiveOfNpyFiles) {
  Result<std::string> not_npy = serialize_zip({{"notes.txt", "hello"}}, false);
  ASSERT_TRUE(not_npy.is_ok());
  Result<NamedArrays> arrays = parse_npz(*not_npy, "d.npz");
  ASSERT_FALSE(arrays.is_ok());
  EXPECT_EQ(arrays.status().message(),
            "'d.npz' is not a .npz archive: member 'notes.txt' is not a .npy file (numpy.savez names every member "
            "NAME.npy)");

  Result<std::string> bad_npy = serialize_zip({{"x.npy", "not numpy"}}, true);
  ASSERT_TRUE(bad_npy.is_ok());
  arrays = parse_npz(*bad_npy, "e.npz");
  ASSERT_FALSE(arrays.is_ok());
  EXPECT_NE(arrays.status().message().find("e.npz:x.npy"), std::string::npos) << arrays.status().message();

  Result<std::string> twice = serialize_zip({{"x.npy", *serialize_npy(Tensor::from_vector<float>({1}, {1}))},
                                             {"x.npy", *serialize_npy(Tensor::from_vector<float>({1}, {2}))}},
                                            false);
  ASSERT_TRUE(twice.is_ok());
  arrays = parse_npz(*twice, "f.npz");
  ASSERT_FALSE(arrays.is_ok());
  EXPECT_EQ(arrays.status().message(), "'f.npz' holds array 'x' twice");
}

// The .npy header of each member is read (inflated) alone, and its size is checked against
// the zip entry's declared size and the memory limit before any payload is inflated.
TEST(NpzArchiveTest, KnowsEachArrayFromItsHeaderAlone) {
  Result<std::string> bytes = serialize_npz({{"a", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6})},
                                             {"b", Tensor::zeros(DataType::kInt64, {1 << 20})}},
                                            true);
  ASSERT_TRUE(bytes.is_ok());
  Result<NpzArchive> archive = NpzArchive::parse(*bytes, "g.npz");
  ASSERT_TRUE(archive.is_ok()) << archive.status().to_string();
  ASSERT_EQ(archive->arrays().size(), 2u);
  EXPECT_EQ(archive->arrays()[1].name, "b");
  EXPECT_EQ(archive->arrays()[1].layout.dtype, DataType::kInt64);
  EXPECT_EQ(archive->arrays()[1].layout.shape, (std::vector<int64_t>{1 << 20}));
  EXPECT_EQ(archive->arrays()[1].layout.payload_bytes, uint64_t{8} << 20);
  Result<Tensor> a = archive->load(0);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->data<float>()[5], 6.0f);

  Result<NpzArchive> limited = NpzArchive::parse(*bytes, "g.npz", size_t{4} << 20);
  ASSERT_FALSE(limited.is_ok());
  EXPECT_EQ(limited.status().message(),
            "g.npz:b.npy (<i8 [1048576]) needs 8.0 MiB; limit 4.0 MiB (raise it with --memory-limit or "
            "SessionOptions::memory_limit)");
}

TEST(NpzArchiveTest, AHeaderDisagreeingWithItsZipEntryIsRefusedBeforeInflating) {
  // The header says float32[1000] (4000 bytes); the entry holds the header and 8 bytes.
  std::string npy = *serialize_npy(Tensor::zeros(DataType::kFloat32, {1000}));
  npy.resize(npy.size() - 4000 + 8);
  Result<std::string> bytes = serialize_zip({{"x.npy", npy}}, true);
  ASSERT_TRUE(bytes.is_ok());
  Result<NpzArchive> archive = NpzArchive::parse(*bytes, "h.npz");
  ASSERT_FALSE(archive.is_ok());
  EXPECT_EQ(archive.status().message(), "h.npz:x.npy: .npy payload is 8 bytes but <f4 [1000] needs 4000");
}

TEST(NpzTest, ReadNpzNamesAMissingFile) {
  Result<NamedArrays> arrays = read_npz("/nonexistent/in.npz");
  ASSERT_FALSE(arrays.is_ok());
  EXPECT_EQ(arrays.status().code(), StatusCode::kNotFound);
  EXPECT_NE(arrays.status().message().find("/nonexistent/in.npz"), std::string::npos);
}

}  // namespace
}  // namespace ge::tools
