#include "ge/onnx_common/value_proto.h"

#include <gtest/gtest.h>

namespace ge::onnx_common {
namespace {

TEST(ValueProtoTest, MapRoundTrip) {
  const MapValue map{Tensor::from_strings({2}, {"a", "b"}),
                     {Tensor::from_vector<float>({1}, {1.5f}), Tensor::from_vector<float>({1}, {2.5f})}};
  Result<MapValue> back = map_from_proto(map_to_proto(map, "m"));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->keys.dtype(), DataType::kString);
  EXPECT_EQ(back->keys.values<std::string>()[1], "b");
  ASSERT_EQ(back->values.size(), 2u);
  EXPECT_EQ(back->values[1].data<float>()[0], 2.5f);

  const MapValue integers{Tensor::from_vector<int64_t>({1}, {42}), {Tensor::from_vector<int32_t>({}, {7})}};
  back = map_from_proto(map_to_proto(integers));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->keys.data<int64_t>()[0], 42);
}

TEST(ValueProtoTest, MapErrors) {
  onnx::MapProto proto =
      map_to_proto({Tensor::from_vector<int64_t>({2}, {1, 2}), {Tensor::from_vector<float>({}, {1})}});
  Result<MapValue> map = map_from_proto(proto);
  ASSERT_FALSE(map.is_ok());
  EXPECT_EQ(map.status().message(), "map has 2 keys but 1 values");
  proto.set_key_type(onnx::TensorProto::FLOAT);
  map = map_from_proto(proto);
  ASSERT_FALSE(map.is_ok());
  EXPECT_EQ(map.status().message(), "map has key_type float32; ONNX map keys are integers or strings");
}

TEST(ValueProtoTest, NestedSequencesAreRefused) {
  onnx::SequenceProto proto;
  proto.set_elem_type(onnx::SequenceProto::MAP);
  Result<std::vector<Tensor>> items = tensors_from_sequence_proto(proto);
  ASSERT_FALSE(items.is_ok());
  EXPECT_EQ(items.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(items.status().message(), "a sequence of maps is not supported (GE's sequences hold tensors)");
}

TEST(ValueProtoTest, SequenceElementsShareADtype) {
  onnx::SequenceProto proto =
      sequence_to_proto({Tensor::from_vector<float>({1}, {1}), Tensor::from_vector<int32_t>({1}, {1})});
  Result<std::vector<Tensor>> items = tensors_from_sequence_proto(proto);
  ASSERT_FALSE(items.is_ok());
  EXPECT_EQ(items.status().message(),
            "sequence element 1 is int32 but element 0 is float32 (a sequence's elements share one type)");
}

}  // namespace
}  // namespace ge::onnx_common
