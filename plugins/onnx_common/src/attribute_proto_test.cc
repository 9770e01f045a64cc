#include "ge/onnx_common/attribute_proto.h"

#include <gtest/gtest.h>

namespace ge::onnx_common {
namespace {

TEST(AttributeFromProto, Scalars) {
  onnx::AttributeProto i;
  i.set_name("axis");
  i.set_type(onnx::AttributeProto::INT);
  i.set_i(-3);
  auto ai = attribute_from_proto(i);
  ASSERT_TRUE(ai.is_ok());
  EXPECT_EQ(ai->get<int64_t>(), -3);

  onnx::AttributeProto f;
  f.set_name("alpha");
  f.set_type(onnx::AttributeProto::FLOAT);
  f.set_f(0.25f);
  auto af = attribute_from_proto(f);
  ASSERT_TRUE(af.is_ok());
  EXPECT_EQ(af->get<float>(), 0.25f);

  onnx::AttributeProto s;
  s.set_name("mode");
  s.set_type(onnx::AttributeProto::STRING);
  s.set_s("constant");
  auto as = attribute_from_proto(s);
  ASSERT_TRUE(as.is_ok());
  EXPECT_EQ(as->get<std::string>(), "constant");
}

TEST(AttributeFromProto, Lists) {
  onnx::AttributeProto ints;
  ints.set_name("pads");
  ints.set_type(onnx::AttributeProto::INTS);
  for (int v : {1, 2, 3, 4}) ints.add_ints(v);
  auto a = attribute_from_proto(ints);
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 3, 4}));

  onnx::AttributeProto floats;
  floats.set_name("scales");
  floats.set_type(onnx::AttributeProto::FLOATS);
  floats.add_floats(0.5f);
  floats.add_floats(2.f);
  auto b = attribute_from_proto(floats);
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->get<std::vector<float>>(), (std::vector<float>{0.5f, 2.f}));

  onnx::AttributeProto strings;
  strings.set_name("names");
  strings.set_type(onnx::AttributeProto::STRINGS);
  strings.add_strings("x");
  strings.add_strings("");
  auto c = attribute_from_proto(strings);
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->get<std::vector<std::string>>(), (std::vector<std::string>{"x", ""}));
}

TEST(AttributeFromProto, TensorAndTensors) {
  onnx::AttributeProto t;
  t.set_name("value");
  t.set_type(onnx::AttributeProto::TENSOR);
  t.mutable_t()->set_data_type(onnx::TensorProto::INT64);
  t.mutable_t()->add_dims(2);
  t.mutable_t()->add_int64_data(7);
  t.mutable_t()->add_int64_data(-8);
  auto a = attribute_from_proto(t);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  const Tensor& tensor = a->get<Tensor>();
  EXPECT_EQ(tensor.dtype(), DataType::kInt64);
  EXPECT_EQ(tensor.data<int64_t>()[1], -8);

  onnx::AttributeProto ts;
  ts.set_name("list");
  ts.set_type(onnx::AttributeProto::TENSORS);
  *ts.add_tensors() = t.t();
  auto b = attribute_from_proto(ts);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->get<std::vector<Tensor>>().size(), 1u);
}

TEST(AttributeFromProto, BadTensorNamesAttribute) {
  onnx::AttributeProto t;
  t.set_name("value");
  t.set_type(onnx::AttributeProto::TENSOR);
  t.mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  t.mutable_t()->add_dims(3);
  t.mutable_t()->add_float_data(1.f);
  auto a = attribute_from_proto(t);
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.status().code(), StatusCode::kParseError);
  EXPECT_NE(a.status().message().find("attribute 'value'"), std::string::npos) << a.status().message();
}

TEST(AttributeFromProto, UntypedOldStyleAttributeDeduced) {
  onnx::AttributeProto old;
  old.set_name("axis");
  old.set_i(2);  // type left UNDEFINED as in IR version 1 models
  EXPECT_EQ(effective_attribute_type(old), onnx::AttributeProto::INT);
  auto a = attribute_from_proto(old);
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->get<int64_t>(), 2);
}

TEST(AttributeFromProto, UnsupportedKindsNamed) {
  onnx::AttributeProto sparse;
  sparse.set_name("sv");
  sparse.set_type(onnx::AttributeProto::SPARSE_TENSOR);
  auto a = attribute_from_proto(sparse);
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(a.status().message().find("'sv'"), std::string::npos);

  onnx::AttributeProto ref;
  ref.set_name("alpha");
  ref.set_ref_attr_name("outer_alpha");
  ref.set_type(onnx::AttributeProto::FLOAT);
  EXPECT_EQ(attribute_from_proto(ref).status().code(), StatusCode::kUnsupported);
}

TEST(AttributeFromProto, TypeProtosBecomeDescs) {
  // Optional's `type`: optional(sequence(tensor(float, [2, N]))).
  onnx::AttributeProto tp;
  tp.set_name("type");
  tp.set_type(onnx::AttributeProto::TYPE_PROTO);
  onnx::TypeProto::Tensor* tensor =
      tp.mutable_tp()->mutable_optional_type()->mutable_elem_type()->mutable_sequence_type()->mutable_elem_type()
          ->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_value(2);
  tensor->mutable_shape()->add_dim()->set_dim_param("N");
  auto a = attribute_from_proto(tp);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->get<TensorDesc>().to_string(), "opt(seq(float32[2,N]))");

  auto back = attribute_to_proto("type", *a);
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back->type(), onnx::AttributeProto::TYPE_PROTO);
  EXPECT_EQ(back->tp().SerializeAsString(), tp.tp().SerializeAsString());

  onnx::AttributeProto list;
  list.set_name("types");
  list.set_type(onnx::AttributeProto::TYPE_PROTOS);
  list.add_type_protos()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  auto l = attribute_from_proto(list);
  ASSERT_TRUE(l.is_ok()) << l.status().to_string();
  ASSERT_EQ(l->get<std::vector<TensorDesc>>().size(), 1u);
  EXPECT_EQ(l->get<std::vector<TensorDesc>>()[0].to_string(), "int64[*]");

  onnx::AttributeProto empty;
  empty.set_name("dtype_proto");
  empty.set_type(onnx::AttributeProto::TYPE_PROTO);  // a TypeProto holding no type
  auto bad = attribute_from_proto(empty);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("'dtype_proto'"), std::string::npos) << bad.status().message();
}

TEST(AttributeToProto, RoundTrips) {
  auto ints = attribute_to_proto("perm", Attribute(std::vector<int64_t>{0, 2, 1}));
  ASSERT_TRUE(ints.is_ok());
  EXPECT_EQ(ints->name(), "perm");
  EXPECT_EQ(ints->type(), onnx::AttributeProto::INTS);
  ASSERT_EQ(ints->ints_size(), 3);
  EXPECT_EQ(ints->ints(1), 2);

  auto f = attribute_to_proto("epsilon", Attribute(1e-5f));
  ASSERT_TRUE(f.is_ok());
  EXPECT_EQ(f->type(), onnx::AttributeProto::FLOAT);
  EXPECT_EQ(f->f(), 1e-5f);

  auto t = attribute_to_proto("value", Attribute(Tensor::from_vector<float>({1}, {2.5f})));
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(t->type(), onnx::AttributeProto::TENSOR);
  EXPECT_EQ(t->t().data_type(), onnx::TensorProto::FLOAT);
  // 2.5f = 0x40200000, little-endian.
  EXPECT_EQ(t->t().raw_data(), std::string("\x00\x00\x20\x40", 4));

  auto g = attribute_to_proto("body", Attribute(Attribute::GraphPtr{}));
  ASSERT_FALSE(g.is_ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace ge::onnx_common
