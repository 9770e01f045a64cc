#include "ge/onnx_common/tensor_proto.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace ge::onnx_common {
namespace {

namespace fs = std::filesystem;

onnx::TensorProto make_proto(const std::string& name, int32_t type, std::vector<int64_t> dims) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(type);
  for (int64_t dim : dims) proto.add_dims(dim);
  return proto;
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// A fresh folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("ge_tensor_proto_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  void write(const fs::path& relative, const std::string& content) const {
    fs::create_directories((path_ / relative).parent_path());
    std::ofstream(path_ / relative, std::ios::binary) << content;
  }

 private:
  fs::path path_;
};

void add_external(onnx::TensorProto& proto, const std::string& location,
                  std::optional<std::string> offset = {}, std::optional<std::string> length = {}) {
  proto.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = proto.add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  if (offset) {
    entry = proto.add_external_data();
    entry->set_key("offset");
    entry->set_value(*offset);
  }
  if (length) {
    entry = proto.add_external_data();
    entry->set_key("length");
    entry->set_value(*length);
  }
}

// ---- data types ----

TEST(DataTypeFromOnnx, MapsEveryGeTypeByValue) {
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::FLOAT), DataType::kFloat32);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::UINT8), DataType::kUInt8);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::INT64), DataType::kInt64);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::STRING), DataType::kString);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::BOOL), DataType::kBool);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::FLOAT16), DataType::kFloat16);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::DOUBLE), DataType::kFloat64);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::UINT64), DataType::kUInt64);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::COMPLEX128), DataType::kComplex128);
  EXPECT_EQ(*data_type_from_onnx(onnx::TensorProto::BFLOAT16), DataType::kBFloat16);
}

TEST(DataTypeFromOnnx, RejectsUndefinedAndUnknown) {
  auto undefined = data_type_from_onnx(0);
  ASSERT_FALSE(undefined.is_ok());
  EXPECT_EQ(undefined.status().code(), StatusCode::kUnsupported);
  auto future = data_type_from_onnx(24);  // past FLOAT4E2M1 (23), the newest GE holds
  ASSERT_FALSE(future.is_ok());
  EXPECT_EQ(future.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(future.status().message().find("24"), std::string::npos);
}

TEST(DataTypeFromOnnx, MapsFloat8AndFourBitTypes) {
  EXPECT_EQ(*data_type_from_onnx(17), DataType::kFloat8E4M3FN);
  EXPECT_EQ(*data_type_from_onnx(20), DataType::kFloat8E5M2FNUZ);
  EXPECT_EQ(*data_type_from_onnx(21), DataType::kUInt4);
  EXPECT_EQ(*data_type_from_onnx(22), DataType::kInt4);
  EXPECT_EQ(*data_type_from_onnx(23), DataType::kFloat4E2M1);
}

// ---- 4-bit types: packed two to a byte in files, one per byte in memory ----

TEST(TensorFromProto, Int4RawDataUnpacksLowNibbleFirstAndSignExtends) {
  auto proto = make_proto("q", 22, {3});
  proto.set_raw_data(std::string{static_cast<char>(0x97), static_cast<char>(0x0e)});
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  const int8_t* values = tensor->data<int8_t>();
  EXPECT_EQ(values[0], 7);
  EXPECT_EQ(values[1], -7);  // 0x9
  EXPECT_EQ(values[2], -2);  // 0xe
  // Written back packed the same way.
  EXPECT_EQ(tensor_to_proto(*tensor).raw_data(), proto.raw_data());
}

TEST(TensorFromProto, FourBitPayloadSizeIsCheckedInPackedBytes) {
  auto proto = make_proto("q", 21, {3});
  proto.set_raw_data(std::string(3, '\0'));
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_NE(tensor.status().message().find("needs 2"), std::string::npos) << tensor.status().to_string();
}

TEST(TensorFromProto, UInt4AndFloat4InInt32DataArePackedPairs) {
  auto proto = make_proto("u", 21, {3});
  proto.add_int32_data(0xF1);
  proto.add_int32_data(0x0C);
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->data<uint8_t>()[0], 1);
  EXPECT_EQ(tensor->data<uint8_t>()[1], 15);
  EXPECT_EQ(tensor->data<uint8_t>()[2], 12);
  auto f4 = make_proto("f", 23, {2});
  f4.add_int32_data(0x97);  // low nibble 0x7 (6.0), high nibble 0x9 (-0.5)
  auto floats = tensor_from_proto(f4);
  ASSERT_TRUE(floats.is_ok()) << floats.status().to_string();
  EXPECT_EQ(floats->scalar_as_double(0), 6.0);
  EXPECT_EQ(floats->scalar_as_double(1), -0.5);
}

TEST(TensorFromProto, Float8InInt32DataAreBitPatterns) {
  auto proto = make_proto("f8", 17, {2});
  proto.add_int32_data(0x7E);  // 448, E4M3FN's largest
  proto.add_int32_data(0xB8);  // -1.0
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->scalar_as_double(0), 448.0);
  EXPECT_EQ(tensor->scalar_as_double(1), -1.0);
}

// ---- typed fields ----

TEST(TensorFromProto, FloatData) {
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {2, 3});
  for (float v : {1.5f, -2.f, 3.f, 4.25f, 0.f, -0.5f}) proto.add_float_data(v);
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->dtype(), DataType::kFloat32);
  EXPECT_EQ(tensor->shape(), (std::vector<int64_t>{2, 3}));
  const float* data = tensor->data<float>();
  EXPECT_EQ(data[0], 1.5f);
  EXPECT_EQ(data[1], -2.f);
  EXPECT_EQ(data[3], 4.25f);
  EXPECT_EQ(data[5], -0.5f);
}

TEST(TensorFromProto, ScalarHasNoDims) {
  auto proto = make_proto("s", onnx::TensorProto::INT64, {});
  proto.add_int64_data(-7);
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->rank(), 0);
  EXPECT_EQ(tensor->data<int64_t>()[0], -7);
}

TEST(TensorFromProto, EmptyTensorNeedsNoData) {
  auto proto = make_proto("e", onnx::TensorProto::FLOAT, {0, 3});
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(tensor->element_count(), 0);
}

TEST(TensorFromProto, Int32DataCarriesSmallIntegerTypes) {
  auto i8 = make_proto("i8", onnx::TensorProto::INT8, {3});
  for (int v : {-128, 5, 127}) i8.add_int32_data(v);
  auto t8 = tensor_from_proto(i8);
  ASSERT_TRUE(t8.is_ok()) << t8.status().to_string();
  EXPECT_EQ(t8->dtype(), DataType::kInt8);
  EXPECT_EQ(t8->data<int8_t>()[0], -128);
  EXPECT_EQ(t8->data<int8_t>()[2], 127);

  auto i16 = make_proto("i16", onnx::TensorProto::INT16, {2});
  for (int v : {-30000, 1234}) i16.add_int32_data(v);
  auto t16 = tensor_from_proto(i16);
  ASSERT_TRUE(t16.is_ok());
  EXPECT_EQ(t16->data<int16_t>()[0], -30000);
  EXPECT_EQ(t16->data<int16_t>()[1], 1234);

  auto u8 = make_proto("u8", onnx::TensorProto::UINT8, {2});
  for (int v : {255, 0}) u8.add_int32_data(v);
  auto tu8 = tensor_from_proto(u8);
  ASSERT_TRUE(tu8.is_ok());
  EXPECT_EQ(tu8->data<uint8_t>()[0], 255);

  auto u16 = make_proto("u16", onnx::TensorProto::UINT16, {1});
  u16.add_int32_data(65535);
  auto tu16 = tensor_from_proto(u16);
  ASSERT_TRUE(tu16.is_ok());
  EXPECT_EQ(tu16->data<uint16_t>()[0], 65535);

  auto b = make_proto("b", onnx::TensorProto::BOOL, {3});
  for (int v : {1, 0, 1}) b.add_int32_data(v);
  auto tb = tensor_from_proto(b);
  ASSERT_TRUE(tb.is_ok());
  EXPECT_EQ(tb->dtype(), DataType::kBool);
  EXPECT_TRUE(tb->data<bool>()[0]);
  EXPECT_FALSE(tb->data<bool>()[1]);
  EXPECT_TRUE(tb->data<bool>()[2]);
}

TEST(TensorFromProto, Int32DataOutsideTheNarrowTypeIsAnError) {
  // 300 as an int8 kept its low byte: 44.
  auto i8 = make_proto("i8", onnx::TensorProto::INT8, {2});
  for (int v : {5, 300}) i8.add_int32_data(v);
  auto t8 = tensor_from_proto(i8);
  ASSERT_FALSE(t8.is_ok());
  EXPECT_NE(t8.status().message().find("int32_data[1] is 300, outside int8's -128..127"), std::string::npos)
      << t8.status().message();
  auto half = make_proto("h", onnx::TensorProto::FLOAT16, {1});
  half.add_int32_data(0x13C00);
  EXPECT_FALSE(tensor_from_proto(half).is_ok());
  auto u32 = make_proto("u32", onnx::TensorProto::UINT32, {1});
  u32.add_uint64_data(uint64_t{1} << 32);
  auto t32 = tensor_from_proto(u32);
  ASSERT_FALSE(t32.is_ok());
  EXPECT_NE(t32.status().message().find("uint64_data[0] is 4294967296, outside uint32's 0..4294967295"),
            std::string::npos)
      << t32.status().message();
}

TEST(TensorFromProto, SixteenBitFloatsKeepTheirBits) {
  // 0x3C00 is 1.0 in IEEE half, 0xC000 is -2.0; 0x3F80 is 1.0 in bfloat16, 0x4049 ~ 3.14.
  auto half = make_proto("h", onnx::TensorProto::FLOAT16, {2});
  half.add_int32_data(0x3C00);
  half.add_int32_data(0xC000);
  auto th = tensor_from_proto(half);
  ASSERT_TRUE(th.is_ok()) << th.status().to_string();
  EXPECT_EQ(th->dtype(), DataType::kFloat16);
  EXPECT_EQ(th->byte_size(), 4u);
  EXPECT_EQ(th->data<uint16_t>()[0], 0x3C00);
  EXPECT_EQ(th->data<uint16_t>()[1], 0xC000);

  auto bf = make_proto("bf", onnx::TensorProto::BFLOAT16, {2});
  bf.add_int32_data(0x3F80);
  bf.add_int32_data(0x4049);
  auto tbf = tensor_from_proto(bf);
  ASSERT_TRUE(tbf.is_ok()) << tbf.status().to_string();
  EXPECT_EQ(tbf->dtype(), DataType::kBFloat16);
  EXPECT_EQ(tbf->data<uint16_t>()[0], 0x3F80);
  EXPECT_EQ(tbf->data<uint16_t>()[1], 0x4049);
}

TEST(TensorFromProto, Int64Uint64DoubleStringFields) {
  auto i64 = make_proto("i64", onnx::TensorProto::INT64, {2});
  i64.add_int64_data(-(int64_t{1} << 40));
  i64.add_int64_data(9);
  auto t64 = tensor_from_proto(i64);
  ASSERT_TRUE(t64.is_ok());
  EXPECT_EQ(t64->data<int64_t>()[0], -1099511627776);

  auto u32 = make_proto("u32", onnx::TensorProto::UINT32, {1});
  u32.add_uint64_data(4294967295u);
  auto tu32 = tensor_from_proto(u32);
  ASSERT_TRUE(tu32.is_ok());
  EXPECT_EQ(tu32->dtype(), DataType::kUInt32);
  EXPECT_EQ(tu32->data<uint32_t>()[0], 4294967295u);

  auto u64 = make_proto("u64", onnx::TensorProto::UINT64, {1});
  u64.add_uint64_data(9223372036854775813ull);
  auto tu64 = tensor_from_proto(u64);
  ASSERT_TRUE(tu64.is_ok());
  EXPECT_EQ(tu64->data<uint64_t>()[0], 9223372036854775813ull);

  auto f64 = make_proto("d", onnx::TensorProto::DOUBLE, {2});
  f64.add_double_data(0.1);
  f64.add_double_data(-1e300);
  auto td = tensor_from_proto(f64);
  ASSERT_TRUE(td.is_ok());
  EXPECT_EQ(td->data<double>()[0], 0.1);
  EXPECT_EQ(td->data<double>()[1], -1e300);

  auto str = make_proto("s", onnx::TensorProto::STRING, {2});
  str.add_string_data("hello");
  str.add_string_data(std::string("a\0b", 3));
  auto ts = tensor_from_proto(str);
  ASSERT_TRUE(ts.is_ok());
  EXPECT_EQ(ts->dtype(), DataType::kString);
  EXPECT_EQ(ts->data<std::string>()[0], "hello");
  EXPECT_EQ(ts->data<std::string>()[1], std::string("a\0b", 3));
}

TEST(TensorFromProto, Complex64UsesTwoFloatsPerElement) {
  auto proto = make_proto("c", onnx::TensorProto::COMPLEX64, {2});
  for (float v : {1.f, 2.f, 3.f, 4.f}) proto.add_float_data(v);
  auto tensor = tensor_from_proto(proto);
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->data<float>()[2], 3.f);
  EXPECT_EQ(tensor->data<float>()[3], 4.f);
}

// ---- raw_data ----

TEST(TensorFromProto, RawDataIsLittleEndian) {
  auto f = make_proto("f", onnx::TensorProto::FLOAT, {2});
  // 1.0f = 0x3F800000, -2.5f = 0xC0200000.
  f.set_raw_data(bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0}));
  auto tf = tensor_from_proto(f);
  ASSERT_TRUE(tf.is_ok()) << tf.status().to_string();
  EXPECT_EQ(tf->data<float>()[0], 1.0f);
  EXPECT_EQ(tf->data<float>()[1], -2.5f);

  auto i = make_proto("i", onnx::TensorProto::INT32, {1});
  i.set_raw_data(bytes({0x04, 0x03, 0x02, 0x01}));
  auto ti = tensor_from_proto(i);
  ASSERT_TRUE(ti.is_ok());
  EXPECT_EQ(ti->data<int32_t>()[0], 0x01020304);

  auto h = make_proto("h", onnx::TensorProto::FLOAT16, {1});
  h.set_raw_data(bytes({0x00, 0x3C}));
  auto th = tensor_from_proto(h);
  ASSERT_TRUE(th.is_ok());
  EXPECT_EQ(th->data<uint16_t>()[0], 0x3C00);
}

TEST(TensorFromProto, RawBoolNormalisesNonZeroBytes) {
  auto b = make_proto("b", onnx::TensorProto::BOOL, {3});
  b.set_raw_data(bytes({0x00, 0x02, 0x01}));
  auto tensor = tensor_from_proto(b);
  ASSERT_TRUE(tensor.is_ok());
  unsigned char stored[3];
  std::memcpy(stored, tensor->raw_data(), 3);
  EXPECT_EQ(stored[0], 0);
  EXPECT_EQ(stored[1], 1);
  EXPECT_EQ(stored[2], 1);
}

// ---- payload checks ----

TEST(TensorFromProto, TypedCountMismatchNamesTensorAndShape) {
  auto proto = make_proto("conv1.weight", onnx::TensorProto::FLOAT, {2, 3});
  for (int i = 0; i < 5; ++i) proto.add_float_data(1.f);
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
  const std::string message = tensor.status().message();
  EXPECT_NE(message.find("conv1.weight"), std::string::npos) << message;
  EXPECT_NE(message.find("float_data holds 5"), std::string::npos) << message;
  EXPECT_NE(message.find("needs 6"), std::string::npos) << message;
}

TEST(TensorFromProto, RawSizeMismatch) {
  auto proto = make_proto("w", onnx::TensorProto::INT64, {3});
  proto.set_raw_data(std::string(20, '\0'));
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
  EXPECT_NE(tensor.status().message().find("raw_data has 20 bytes"), std::string::npos)
      << tensor.status().message();
  EXPECT_NE(tensor.status().message().find("needs 24"), std::string::npos);
}

TEST(TensorFromProto, MissingPayloadIsAnError) {
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {4});
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
}

TEST(TensorFromProto, HugeShapeWithoutDataFailsWithoutAllocating) {
  auto proto = make_proto("big", onnx::TensorProto::FLOAT, {1 << 30, 1 << 30});
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  auto overflow = make_proto("overflow", onnx::TensorProto::FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  auto tensor2 = tensor_from_proto(overflow);
  ASSERT_FALSE(tensor2.is_ok());
  EXPECT_EQ(tensor2.status().code(), StatusCode::kParseError);
}

TEST(TensorFromProto, NegativeDimRejected) {
  auto proto = make_proto("neg", onnx::TensorProto::FLOAT, {2, -1});
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_NE(tensor.status().message().find("negative"), std::string::npos);
}

TEST(TensorFromProto, StringRawDataRejected) {
  auto proto = make_proto("s", onnx::TensorProto::STRING, {1});
  proto.set_raw_data("abc");
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_NE(tensor.status().message().find("string_data"), std::string::npos);
}

TEST(TensorFromProto, UnsupportedTypeNamesTensor) {
  auto proto = make_proto("odd", 0, {1});
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(tensor.status().message().find("'odd'"), std::string::npos);
}

// ---- external data ----

// 3 floats {1, 2, -2.5} after 8 bytes of padding.
const std::string kWeightsFile = std::string(8, 'x') +
                                 bytes({0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40, 0x00,
                                        0x00, 0x20, 0xC0});

TEST(ExternalData, ReadsOffsetAndLength) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->data<float>()[0], 1.f);
  EXPECT_EQ(tensor->data<float>()[1], 2.f);
  EXPECT_EQ(tensor->data<float>()[2], -2.5f);
}

TEST(ExternalData, DefaultLengthIsRestOfFileAndSubfoldersWork) {
  TempDir dir;
  dir.write("data/w.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "data/../data/w.bin", "8");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(tensor->data<float>()[2], -2.5f);
}

TEST(ExternalData, TwoLoadsOfOneRangeShareItsBytes) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto a = tensor_from_proto(proto, dir.path());
  auto b = tensor_from_proto(proto, dir.path());  // a second session of the model
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_EQ(a->raw_data(), b->raw_data());
  EXPECT_EQ(a->data<float>()[1], 2.f);
  // The bytes outlive the file's name.
  fs::remove(dir.path() / "weights.bin");
  EXPECT_EQ(a->data<float>()[2], -2.5f);
}

TEST(ExternalData, ARangeOfAChangedFileIsReadAgain) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto a = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  std::string changed = kWeightsFile;
  changed.replace(8, 4, bytes({0x00, 0x00, 0x40, 0x40}));  // 3.0f
  fs::remove(dir.path() / "weights.bin");  // a new inode, as a rename over the old file gives
  dir.write("weights.bin", changed);
  auto b = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_EQ(a->data<float>()[0], 1.f);
  EXPECT_EQ(b->data<float>()[0], 3.f);
}

// Issue 36 item 3: a loaded tensor no longer follows its file. Rewriting the file in
// place (cp, rsync --inplace) must not change it, and truncating the file must not kill
// the process with SIGBUS on the next read (this test would die).
TEST(ExternalData, LoadedTensorIgnoresARewriteOfTheFileInPlace) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  {
    std::fstream file(dir.path() / "weights.bin", std::ios::binary | std::ios::in | std::ios::out);
    const std::string zeros(12, '\0');
    file.seekp(8);
    file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  EXPECT_EQ(tensor->data<float>()[0], 1.f);
  EXPECT_EQ(tensor->data<float>()[2], -2.5f);
}

TEST(ExternalData, LoadedTensorSurvivesTruncationOfTheFile) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  ASSERT_EQ(::truncate((dir.path() / "weights.bin").c_str(), 0), 0);
  EXPECT_EQ(tensor->data<float>()[0], 1.f);  // SIGBUS here when the pages follow the file
  EXPECT_EQ(tensor->data<float>()[2], -2.5f);
}

TEST(ExternalData, MisalignedDataIsCopied) {
  TempDir dir;
  dir.write("odd.bin", std::string(1, 'x') + kWeightsFile);  // the floats now start at offset 9
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "odd.bin", "9", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_TRUE(tensor.is_ok()) << tensor.status().to_string();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor->raw_data()) % alignof(float), 0u);
  EXPECT_EQ(tensor->data<float>()[0], 1.f);
  EXPECT_EQ(tensor->data<float>()[2], -2.5f);
}

TEST(ExternalData, RefusesEscapingPath) {
  TempDir dir;
  dir.write("inner/model_dir_marker", "");
  dir.write("x", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "../x", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path() / "inner");
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tensor.status().message().find("escapes"), std::string::npos)
      << tensor.status().message();
  EXPECT_NE(tensor.status().message().find("'w'"), std::string::npos);
}

TEST(ExternalData, RefusesSymlinkLeavingTheFolder) {
  TempDir dir;
  dir.write("outside.bin", kWeightsFile);
  fs::create_directories(dir.path() / "model");
  fs::create_symlink(dir.path() / "outside.bin", dir.path() / "model" / "link.bin");
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "link.bin", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path() / "model");
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kInvalidArgument);
}

TEST(ExternalData, RefusesAbsolutePath) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, (dir.path() / "weights.bin").string(), "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tensor.status().message().find("absolute"), std::string::npos);
}

TEST(ExternalData, MissingFile) {
  TempDir dir;
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "nope.bin");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kNotFound);
  EXPECT_NE(tensor.status().message().find("nope.bin"), std::string::npos);
}

TEST(ExternalData, ShortFile) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile.substr(0, 16));
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "12");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
  EXPECT_NE(tensor.status().message().find("too short"), std::string::npos)
      << tensor.status().message();
}

TEST(ExternalData, LengthDisagreeingWithShape) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "8", "8");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_NE(tensor.status().message().find("external data has 8 bytes"), std::string::npos)
      << tensor.status().message();
}

TEST(ExternalData, NoBaseDirRefused) {
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin");
  auto tensor = tensor_from_proto(proto);
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kInvalidArgument);
}

TEST(ExternalData, BadOffsetText) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "-8");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
}

// Issue 36 item 16: 19 digits above INT64_MAX passed the digit check and std::stoll threw,
// an "internal error ... stoll" naming neither the tensor nor the key.
TEST(ExternalData, OffsetOrLengthAboveInt64MaxNamesTheTensorAndTheKey) {
  TempDir dir;
  dir.write("weights.bin", kWeightsFile);
  for (const char* key : {"offset", "length"}) {
    for (const std::string text : {"9999999999999999999", "9223372036854775808", "123456789012345678901234"}) {
      auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
      if (std::string(key) == "offset") {
        add_external(proto, "weights.bin", text);
      } else {
        add_external(proto, "weights.bin", "8", text);
      }
      auto tensor = tensor_from_proto(proto, dir.path());
      ASSERT_FALSE(tensor.is_ok()) << key << " = " << text;
      EXPECT_EQ(tensor.status().code(), StatusCode::kParseError);
      EXPECT_EQ(tensor.status().message(), std::string("tensor 'w': external data key '") + key + "' = " + text +
                                               " is out of range (at most 9223372036854775807)");
    }
  }
  // INT64_MAX itself parses, and is then past the end of the file.
  auto proto = make_proto("w", onnx::TensorProto::FLOAT, {3});
  add_external(proto, "weights.bin", "9223372036854775807");
  auto tensor = tensor_from_proto(proto, dir.path());
  ASSERT_FALSE(tensor.is_ok());
  EXPECT_NE(tensor.status().message().find("offset 9223372036854775807 is past the end"), std::string::npos)
      << tensor.status().message();
}

// ---- tensor_to_proto ----

TEST(TensorToProto, WritesLittleEndianRawData) {
  Tensor tensor = Tensor::from_vector<int32_t>({2}, {0x01020304, -1});
  onnx::TensorProto proto = tensor_to_proto(tensor, "t");
  EXPECT_EQ(proto.name(), "t");
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::INT32);
  ASSERT_EQ(proto.dims_size(), 1);
  EXPECT_EQ(proto.dims(0), 2);
  EXPECT_EQ(proto.raw_data(), bytes({0x04, 0x03, 0x02, 0x01, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(TensorToProto, StringsGoToStringData) {
  Tensor tensor = Tensor::from_strings({2}, {"a", "bc"});
  onnx::TensorProto proto = tensor_to_proto(tensor);
  EXPECT_FALSE(proto.has_raw_data());
  ASSERT_EQ(proto.string_data_size(), 2);
  EXPECT_EQ(proto.string_data(1), "bc");
}

TEST(TensorToProto, RoundTripsFloat16Bits) {
  auto half = make_proto("h", onnx::TensorProto::FLOAT16, {2});
  half.add_int32_data(0x3C00);
  half.add_int32_data(0x7BFF);
  auto tensor = tensor_from_proto(half);
  ASSERT_TRUE(tensor.is_ok());
  onnx::TensorProto proto = tensor_to_proto(*tensor);
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(proto.raw_data(), bytes({0x00, 0x3C, 0xFF, 0x7B}));
}

// ---- tensor files ----

TEST(TensorFile, WriteThenReadAndTestDataFile) {
  TempDir dir;
  const Tensor tensor = Tensor::from_vector<int64_t>({3}, {5, -6, 7});
  ASSERT_TRUE(write_tensor_file(tensor, dir.path() / "t.pb", "t").is_ok());
  auto back = read_tensor_file(dir.path() / "t.pb");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(back->data<int64_t>()[1], -6);

  // A file written by hand with typed fields, as ONNX's test data does.
  auto proto = make_proto("in", onnx::TensorProto::FLOAT, {2});
  proto.add_float_data(0.25f);
  proto.add_float_data(-4.f);
  dir.write("input_0.pb", proto.SerializeAsString());
  auto input = read_tensor_file(dir.path() / "input_0.pb");
  ASSERT_TRUE(input.is_ok());
  EXPECT_EQ(input->data<float>()[1], -4.f);
}

TEST(TensorFile, Errors) {
  TempDir dir;
  auto missing = read_tensor_file(dir.path() / "none.pb");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("none.pb"), std::string::npos);

  dir.write("junk.pb", std::string("\xff\xff\xff\xff\xff", 5));
  auto junk = read_tensor_file(dir.path() / "junk.pb");
  ASSERT_FALSE(junk.is_ok());
  EXPECT_EQ(junk.status().code(), StatusCode::kParseError);

  auto bad = make_proto("bad", onnx::TensorProto::FLOAT, {4});
  bad.add_float_data(1.f);
  dir.write("bad.pb", bad.SerializeAsString());
  auto short_payload = read_tensor_file(dir.path() / "bad.pb");
  ASSERT_FALSE(short_payload.is_ok());
  EXPECT_NE(short_payload.status().message().find("bad.pb"), std::string::npos);
  EXPECT_NE(short_payload.status().message().find("needs 4"), std::string::npos);

  EXPECT_FALSE(write_tensor_file(Tensor::from_vector<float>({1}, {1.f}), dir.path() / "no" / "dir.pb").is_ok());
}

// ---- TypeProto <-> TensorDesc ----

onnx::TypeProto tensor_type(int32_t elem, std::vector<std::variant<int64_t, std::string, std::monostate>> dims) {
  onnx::TypeProto type;
  auto* tensor = type.mutable_tensor_type();
  tensor->set_elem_type(elem);
  auto* shape = tensor->mutable_shape();
  for (const auto& dim : dims) {
    auto* d = shape->add_dim();
    if (auto* v = std::get_if<int64_t>(&dim)) d->set_dim_value(*v);
    if (auto* s = std::get_if<std::string>(&dim)) d->set_dim_param(*s);
  }
  return type;
}

TEST(DescFromTypeProto, StaticNamedAndUnknownDims) {
  auto type = tensor_type(onnx::TensorProto::FLOAT, {int64_t{1}, std::string("N"), std::monostate{}});
  auto desc = desc_from_type_proto(type);
  ASSERT_TRUE(desc.is_ok()) << desc.status().to_string();
  EXPECT_EQ(desc->kind, ValueKind::kTensor);
  EXPECT_EQ(desc->dtype, DataType::kFloat32);
  ASSERT_TRUE(desc->shape.has_value());
  ASSERT_EQ(desc->shape->size(), 3u);
  EXPECT_EQ((*desc->shape)[0], Dim::of(1));
  EXPECT_EQ((*desc->shape)[1], Dim::named("N"));
  EXPECT_EQ((*desc->shape)[2], Dim::unknown());
}

TEST(DescFromTypeProto, NoShapeMeansUnknownRank) {
  onnx::TypeProto type;
  type.mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  auto desc = desc_from_type_proto(type);
  ASSERT_TRUE(desc.is_ok());
  EXPECT_EQ(desc->dtype, DataType::kInt64);
  EXPECT_FALSE(desc->shape.has_value());
}

TEST(DescFromTypeProto, ScalarShapeIsRankZero) {
  auto type = tensor_type(onnx::TensorProto::BOOL, {});
  auto desc = desc_from_type_proto(type);
  ASSERT_TRUE(desc.is_ok());
  ASSERT_TRUE(desc->shape.has_value());
  EXPECT_TRUE(desc->shape->empty());
}

TEST(DescFromTypeProto, SequenceOptionalAndOptionalSequence) {
  onnx::TypeProto seq;
  *seq.mutable_sequence_type()->mutable_elem_type() = tensor_type(onnx::TensorProto::FLOAT, {int64_t{2}});
  auto seq_desc = desc_from_type_proto(seq);
  ASSERT_TRUE(seq_desc.is_ok()) << seq_desc.status().to_string();
  EXPECT_EQ(seq_desc->kind, ValueKind::kSequence);
  EXPECT_EQ(seq_desc->dtype, DataType::kFloat32);
  EXPECT_EQ(seq_desc->shape, (std::vector<Dim>{Dim::of(2)}));

  onnx::TypeProto opt;
  *opt.mutable_optional_type()->mutable_elem_type() = tensor_type(onnx::TensorProto::INT32, {std::string("B")});
  auto opt_desc = desc_from_type_proto(opt);
  ASSERT_TRUE(opt_desc.is_ok());
  EXPECT_EQ(opt_desc->kind, ValueKind::kOptional);
  EXPECT_EQ(opt_desc->dtype, DataType::kInt32);
  EXPECT_EQ(opt_desc->shape, (std::vector<Dim>{Dim::named("B")}));

  onnx::TypeProto opt_seq;
  *opt_seq.mutable_optional_type()->mutable_elem_type() = seq;
  auto opt_seq_desc = desc_from_type_proto(opt_seq);
  ASSERT_TRUE(opt_seq_desc.is_ok());
  EXPECT_EQ(opt_seq_desc->kind, ValueKind::kOptionalSequence);
  EXPECT_EQ(opt_seq_desc->dtype, DataType::kFloat32);
}

TEST(DescFromTypeProto, MapAndSparseUnsupported) {
  onnx::TypeProto map;
  map.mutable_map_type()->set_key_type(onnx::TensorProto::INT64);
  auto map_desc = desc_from_type_proto(map);
  ASSERT_FALSE(map_desc.is_ok());
  EXPECT_EQ(map_desc.status().code(), StatusCode::kUnsupported);

  onnx::TypeProto sparse;
  sparse.mutable_sparse_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  EXPECT_EQ(desc_from_type_proto(sparse).status().code(), StatusCode::kUnsupported);
}

TEST(DescToTypeProto, InverseOfDescFromTypeProto) {
  TensorDesc desc(DataType::kFloat16, {Dim::of(3), Dim::named("T"), Dim::unknown()});
  onnx::TypeProto type = desc_to_type_proto(desc);
  ASSERT_TRUE(type.has_tensor_type());
  EXPECT_EQ(type.tensor_type().elem_type(), onnx::TensorProto::FLOAT16);
  const auto& shape = type.tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 3);
  EXPECT_EQ(shape.dim(0).dim_value(), 3);
  EXPECT_EQ(shape.dim(1).dim_param(), "T");
  EXPECT_FALSE(shape.dim(2).has_dim_value());
  EXPECT_FALSE(shape.dim(2).has_dim_param());
  auto back = desc_from_type_proto(type);
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, desc);

  TensorDesc seq = desc;
  seq.kind = ValueKind::kOptionalSequence;
  seq.shape.reset();
  onnx::TypeProto seq_type = desc_to_type_proto(seq);
  ASSERT_TRUE(seq_type.has_optional_type());
  auto seq_back = desc_from_type_proto(seq_type);
  ASSERT_TRUE(seq_back.is_ok());
  EXPECT_EQ(*seq_back, seq);
}

}  // namespace
}  // namespace ge::onnx_common
