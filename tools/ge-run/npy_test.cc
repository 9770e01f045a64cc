#include "npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace ge::tools {
namespace {

// The byte strings below were written by numpy 1.24 (np.save, or
// np.lib.format.write_array for versions 2.0 and 3.0) with /usr/bin/python3.
// np.array([[1.5, -2, 3], [4, 5.25, -6]], dtype="<f4")
constexpr char kFloat32_2x3[] =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028322c2033292c207d202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a0000c03f000000c000004040000080400000a8400000c0c0";
// np.array(-7, dtype="<i8")
constexpr char kInt64Scalar[] =
    "934e554d5059010076007b276465736372273a20273c6938272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028292c207d20202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200af9ffffffffffffff";
// np.array([True, False, True])
constexpr char kBool3[] =
    "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028332c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a010001";
// np.array([1.0, -2.0], dtype="<f2")
constexpr char kFloat16_2[] =
    "934e554d5059010076007b276465736372273a20273c6632272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028322c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a003c00c0";
// np.zeros((0, 4), dtype="u1")
constexpr char kUInt8_0x4[] =
    "934e554d5059010076007b276465736372273a20277c7531272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028302c2034292c207d202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a";
// write_array(f, np.array([1, -2, 3], dtype="<i4"), version=(2, 0))
constexpr char kInt32V2[] =
    "934e554d50590200740000007b276465736372273a20273c6934272c2027666f727472616e5f6f72646572273a2046616c73652c2027736861"
    "7065273a2028332c292c207d202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a01000000feffffff03000000";
// write_array(f, np.array([[1], [65535]], dtype="<u2"), version=(3, 0))
constexpr char kUInt16V3[] =
    "934e554d50590300740000007b276465736372273a20273c7532272c2027666f727472616e5f6f72646572273a2046616c73652c2027736861"
    "7065273a2028322c2031292c207d20202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a0100ffff";
// np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3))
constexpr char kFortran[] =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a20547275652c2027736861706527"
    "3a2028322c2033292c207d20202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a00000000000040400000803f00008040000000400000a040";
// np.array([1.0], dtype=">f4")
constexpr char kBigEndian[] =
    "934e554d5059010076007b276465736372273a20273e6634272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028312c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200a3f800000";
// np.array(-3, dtype="i1")
constexpr char kInt8Scalar[] =
    "934e554d5059010076007b276465736372273a20277c6931272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065"
    "273a2028292c207d20202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020"
    "202020202020202020202020200afd";

std::string from_hex(const char* hex) {
  std::string bytes;
  for (size_t i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
    bytes += static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16));
  }
  return bytes;
}

// A version 1.0 file with `header` verbatim (no padding) and `payload`.
std::string make_v1(const std::string& header, const std::string& payload) {
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + payload;
}

Tensor parse_ok(const std::string& bytes) {
  Result<Tensor> tensor = parse_npy(bytes, "case.npy");
  EXPECT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  return tensor.is_ok() ? *tensor : Tensor();
}

Status parse_error_of(const std::string& bytes) {
  Result<Tensor> tensor = parse_npy(bytes, "case.npy");
  EXPECT_FALSE(tensor.is_ok());
  return tensor.status();
}

TEST(NpyTest, ReadsFloat32Matrix) {
  Tensor t = parse_ok(from_hex(kFloat32_2x3));
  EXPECT_EQ(t.dtype(), DataType::kFloat32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::vector<float>(t.values<float>().begin(), t.values<float>().end()),
            (std::vector<float>{1.5f, -2.f, 3.f, 4.f, 5.25f, -6.f}));
}

TEST(NpyTest, ReadsInt64Scalar) {
  Tensor t = parse_ok(from_hex(kInt64Scalar));
  EXPECT_EQ(t.dtype(), DataType::kInt64);
  EXPECT_TRUE(t.shape().empty());
  EXPECT_EQ(t.data<int64_t>()[0], -7);
}

TEST(NpyTest, ReadsBool) {
  Tensor t = parse_ok(from_hex(kBool3));
  EXPECT_EQ(t.dtype(), DataType::kBool);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(t.data<bool>()[0]);
  EXPECT_FALSE(t.data<bool>()[1]);
  EXPECT_TRUE(t.data<bool>()[2]);
}

TEST(NpyTest, ReadsFloat16Bits) {
  Tensor t = parse_ok(from_hex(kFloat16_2));
  EXPECT_EQ(t.dtype(), DataType::kFloat16);
  uint16_t bits[2];
  std::memcpy(bits, t.raw_data(), sizeof(bits));
  EXPECT_EQ(bits[0], 0x3C00);  // 1.0
  EXPECT_EQ(bits[1], 0xC000);  // -2.0
}

TEST(NpyTest, ReadsEmptyArray) {
  Tensor t = parse_ok(from_hex(kUInt8_0x4));
  EXPECT_EQ(t.dtype(), DataType::kUInt8);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(t.element_count(), 0);
}

TEST(NpyTest, ReadsVersion2And3Headers) {
  Tensor v2 = parse_ok(from_hex(kInt32V2));
  EXPECT_EQ(v2.dtype(), DataType::kInt32);
  EXPECT_EQ(v2.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(v2.data<int32_t>()[1], -2);
  Tensor v3 = parse_ok(from_hex(kUInt16V3));
  EXPECT_EQ(v3.dtype(), DataType::kUInt16);
  EXPECT_EQ(v3.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(v3.data<uint16_t>()[1], 65535);
}

TEST(NpyTest, RefusesFortranOrder) {
  Status status = parse_error_of(from_hex(kFortran));
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("case.npy"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("Fortran order"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesBigEndian) {
  Status status = parse_error_of(from_hex(kBigEndian));
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("big-endian .npy dtype '>f4'"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesUnsupportedDtype) {
  Status status =
      parse_error_of(make_v1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n", std::string(8, '\0')));
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("unsupported .npy dtype '<c8'"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesBadMagic) {
  Status status = parse_error_of("PK\x03\x04 this is a zip file");
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_NE(status.message().find("not a .npy file"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesUnknownVersion) {
  std::string bytes = from_hex(kFloat32_2x3);
  bytes[6] = 4;
  Status status = parse_error_of(bytes);
  EXPECT_NE(status.message().find("version 4.0"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesTruncatedPayload) {
  std::string bytes = from_hex(kFloat32_2x3);
  bytes.pop_back();
  Status status = parse_error_of(bytes);
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_NE(status.message().find("payload is 23 bytes but <f4 [2,3] needs 24"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesTrailingBytes) {
  Status status = parse_error_of(from_hex(kFloat32_2x3) + "x");
  EXPECT_NE(status.message().find("payload is 25 bytes"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesTruncatedHeader) {
  Status status = parse_error_of(from_hex(kFloat32_2x3).substr(0, 40));
  EXPECT_NE(status.message().find("truncated .npy header"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesMalformedHeaders) {
  const std::string four_floats(16, '\0');
  const char* bad_headers[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4), }",         // not a tuple
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }",       // negative dim
      "{'descr': '<f4', 'fortran_order': False}",                         // no shape
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }",            // not a bool
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}",  // unknown key
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } junk",
      "{'descr': '<f4 'fortran_order': False, 'shape': (4,), }",
      "['descr', '<f4']",
  };
  for (const char* header : bad_headers) {
    Status status = parse_error_of(make_v1(header, four_floats));
    EXPECT_EQ(status.code(), StatusCode::kParseError) << header << " -> " << status.to_string();
    EXPECT_NE(status.message().find("malformed .npy header"), std::string::npos) << status.message();
  }
}

TEST(NpyTest, AcceptsDoubleQuotesAndNoTrailingComma) {
  std::string payload(8, '\0');
  payload[0] = 1;
  payload[4] = 2;
  Tensor t = parse_ok(make_v1("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}", payload));
  EXPECT_EQ(t.dtype(), DataType::kInt32);
  EXPECT_EQ(t.data<int32_t>()[0], 1);
  EXPECT_EQ(t.data<int32_t>()[1], 2);
}

TEST(NpyTest, RefusesBoolOutsideZeroOne) {
  Status status =
      parse_error_of(make_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x01\x02", 2)));
  EXPECT_NE(status.message().find("bool element 1"), std::string::npos) << status.message();
}

TEST(NpyTest, RefusesHugeShape) {
  Status status =
      parse_error_of(make_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""));
  EXPECT_NE(status.message().find("too large"), std::string::npos) << status.message();
}

TEST(NpyTest, WritesExactlyWhatNumpyWrites) {
  Tensor f32 = Tensor::from_vector<float>({2, 3}, {1.5f, -2.f, 3.f, 4.f, 5.25f, -6.f});
  Result<std::string> bytes = serialize_npy(f32);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  EXPECT_EQ(*bytes, from_hex(kFloat32_2x3));

  Tensor scalar = Tensor::from_vector<int64_t>({}, {-7});
  EXPECT_EQ(*serialize_npy(scalar), from_hex(kInt64Scalar));
  Tensor flags = Tensor::from_vector<bool>({3}, {true, false, true});
  EXPECT_EQ(*serialize_npy(flags), from_hex(kBool3));
  Tensor byte = Tensor::from_vector<int8_t>({}, {-3});
  EXPECT_EQ(*serialize_npy(byte), from_hex(kInt8Scalar));
  EXPECT_EQ(*serialize_npy(Tensor::zeros(DataType::kUInt8, {0, 4})), from_hex(kUInt8_0x4));
}

TEST(NpyTest, RefusesToWriteStrings) {
  Result<std::string> bytes = serialize_npy(Tensor::from_strings({1}, {"a"}));
  ASSERT_FALSE(bytes.is_ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(bytes.status().message().find("string"), std::string::npos) << bytes.status().message();
}

TEST(NpyTest, FileRoundTrip) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ge_npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Tensor t = Tensor::from_vector<double>({2}, {0.25, -8.0});
  ASSERT_TRUE(write_npy(dir / "t.npy", t).is_ok());
  Result<Tensor> back = read_npy(dir / "t.npy");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->dtype(), DataType::kFloat64);
  EXPECT_EQ(back->shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(back->data<double>()[0], 0.25);
  EXPECT_EQ(back->data<double>()[1], -8.0);

  Result<Tensor> missing = read_npy(dir / "missing.npy");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("missing.npy"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ge::tools
