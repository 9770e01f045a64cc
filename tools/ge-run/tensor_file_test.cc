#include "tensor_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ge/onnx_common/tensor_proto.h"
#include "ge/onnx_common/value_proto.h"
#include "npy.h"

namespace ge::tools {
namespace {

namespace fs = std::filesystem;

class ValueFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ge_value_file_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const google::protobuf::MessageLite& message) {
    const fs::path path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    message.SerializeToOstream(&out);
    return path;
  }

  fs::path dir_;
};

const TensorDesc kFloats = TensorDesc::of(DataType::kFloat32, {2});

TensorDesc of_kind(TensorDesc desc, ValueKind kind) {
  desc.kind = kind;
  return desc;
}

TEST_F(ValueFileTest, ReadsSequenceProto) {
  const fs::path file = write("seq.pb", onnx_common::sequence_to_proto({Tensor::from_vector<float>({2}, {1, 2}),
                                                                        Tensor::from_vector<float>({2}, {3, 4})}));
  Result<RuntimeValue> value = read_value_file(file, of_kind(kFloats, ValueKind::kSequence));
  ASSERT_TRUE(value.is_ok()) << value.status().to_string();
  EXPECT_EQ(value->kind, ValueKind::kSequence);
  ASSERT_EQ(value->sequence.size(), 2u);
  EXPECT_EQ(value->sequence[1].data<float>()[1], 4.0f);
}

TEST_F(ValueFileTest, ReadsOptionalProtos) {
  onnx::OptionalProto empty;
  empty.set_elem_type(onnx::OptionalProto::TENSOR);
  Result<RuntimeValue> value = read_value_file(write("empty.pb", empty), of_kind(kFloats, ValueKind::kOptional));
  ASSERT_TRUE(value.is_ok()) << value.status().to_string();
  EXPECT_FALSE(value->has_element);
  EXPECT_EQ(value->kind, ValueKind::kOptional);

  RuntimeValue sequence = RuntimeValue::of_sequence({Tensor::from_vector<float>({2}, {5, 6})}, DataType::kFloat32);
  sequence.kind = ValueKind::kOptionalSequence;
  value = read_value_file(write("opt_seq.pb", onnx_common::optional_to_proto(sequence)),
                          of_kind(kFloats, ValueKind::kOptionalSequence));
  ASSERT_TRUE(value.is_ok()) << value.status().to_string();
  EXPECT_TRUE(value->holds_sequence());
  EXPECT_EQ(value->sequence[0].data<float>()[1], 6.0f);

  // An optional holding a tensor where the model declares an optional sequence.
  RuntimeValue tensor = RuntimeValue::of(Tensor::from_vector<float>({2}, {1, 2}));
  tensor.kind = ValueKind::kOptional;
  value = read_value_file(write("opt_tensor.pb", onnx_common::optional_to_proto(tensor)),
                          of_kind(kFloats, ValueKind::kOptionalSequence));
  ASSERT_FALSE(value.is_ok());
  EXPECT_NE(value.status().message().find("the optional holds a tensor but the model declares"), std::string::npos)
      << value.status().message();
}

TEST_F(ValueFileTest, NpyGivesATensorOrAPresentOptional) {
  const fs::path file = dir_ / "x.npy";
  ASSERT_TRUE(write_npy(file, Tensor::from_vector<float>({2}, {1, 2})).is_ok());
  Result<RuntimeValue> value = read_value_file(file, of_kind(kFloats, ValueKind::kOptional));
  ASSERT_TRUE(value.is_ok()) << value.status().to_string();
  EXPECT_EQ(value->kind, ValueKind::kOptional);
  EXPECT_TRUE(value->holds_tensor());
  value = read_value_file(file, of_kind(kFloats, ValueKind::kSequence));
  ASSERT_FALSE(value.is_ok());
  EXPECT_NE(value.status().message().find("holds one tensor but the model declares"), std::string::npos)
      << value.status().message();
}

TEST_F(ValueFileTest, BFloat16StoredAsUInt16) {
  const fs::path file =
      write("bf16.pb", onnx_common::tensor_to_proto(Tensor::from_vector<uint16_t>({2}, {0x3f80, 0xc000})));
  Result<RuntimeValue> value = read_value_file(file, TensorDesc::of(DataType::kBFloat16, {2}));
  ASSERT_TRUE(value.is_ok()) << value.status().to_string();
  EXPECT_EQ(value->tensor.dtype(), DataType::kBFloat16);
  EXPECT_EQ(value->tensor.data<uint16_t>()[1], 0xc000);

  // Written back the way the test data stores it: uint16 bit patterns.
  const fs::path out = dir_ / "out.pb";
  ASSERT_TRUE(write_value_file(out, *value, "y").is_ok());
  Result<Tensor> written = onnx_common::read_tensor_file(out);
  ASSERT_TRUE(written.is_ok());
  EXPECT_EQ(written->dtype(), DataType::kUInt16);
  EXPECT_EQ(written->data<uint16_t>()[0], 0x3f80);
}

TEST_F(ValueFileTest, WritesSequencesAndOptionals) {
  RuntimeValue sequence = RuntimeValue::of_sequence(
      {Tensor::from_vector<int64_t>({1}, {7}), Tensor::from_vector<int64_t>({3}, {1, 2, 3})}, DataType::kInt64);
  ASSERT_TRUE(write_value_file(dir_ / "s.pb", sequence, "s").is_ok());
  Result<RuntimeValue> back = read_value_file(dir_ / "s.pb", TensorDesc(DataType::kInt64, {Dim::unknown()}));
  EXPECT_FALSE(back.is_ok());  // the model declares a tensor: a SequenceProto is refused, and said to be one
  EXPECT_NE(back.status().message().find("is not a serialized ONNX TensorProto (it looks like a SequenceProto)"),
            std::string::npos)
      << back.status().message();
  TensorDesc declared(DataType::kInt64, {Dim::unknown()});
  declared.kind = ValueKind::kSequence;
  back = read_value_file(dir_ / "s.pb", declared);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  ASSERT_EQ(back->sequence.size(), 2u);
  EXPECT_EQ(back->sequence[1].data<int64_t>()[2], 3);

  const RuntimeValue empty = RuntimeValue::empty_optional(ValueKind::kOptionalSequence, DataType::kInt64);
  ASSERT_TRUE(write_value_file(dir_ / "o.pb", empty, "o").is_ok());
  declared.kind = ValueKind::kOptionalSequence;
  back = read_value_file(dir_ / "o.pb", declared);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_FALSE(back->has_element);
  EXPECT_EQ(back->kind, ValueKind::kOptionalSequence);
}

TEST_F(ValueFileTest, SaysWhatAWrongFileHolds) {
  onnx_common::MapValue map{Tensor::from_vector<int64_t>({2}, {1, 2}),
                            {Tensor::from_vector<float>({}, {0.5f}), Tensor::from_vector<float>({}, {1.5f})}};
  const fs::path file = write("map.pb", onnx_common::map_to_proto(map, "m"));
  Result<RuntimeValue> value = read_value_file(file, of_kind(kFloats, ValueKind::kSequence));
  ASSERT_FALSE(value.is_ok());
  EXPECT_EQ(value.status().code(), StatusCode::kParseError);
  EXPECT_NE(value.status().message().find("is not a serialized ONNX SequenceProto (it holds a MapProto (GE's runtime "
                                          "holds no maps)); the model declares a sequence"),
            std::string::npos)
      << value.status().message();

  std::ofstream(dir_ / "junk.pb", std::ios::binary) << std::string("\xff\xff\xff", 3);
  value = read_value_file(dir_ / "junk.pb", kFloats);
  ASSERT_FALSE(value.is_ok());
  EXPECT_NE(value.status().message().find("it is none of TensorProto, SequenceProto, OptionalProto, MapProto"),
            std::string::npos)
      << value.status().message();

  value = read_value_file(dir_ / "missing.pb", kFloats);
  ASSERT_FALSE(value.is_ok());
  EXPECT_EQ(value.status().code(), StatusCode::kNotFound);
  value = read_value_file(dir_ / "x.txt", kFloats);
  ASSERT_FALSE(value.is_ok());
  EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge::tools
