#include "input_binding.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "ge/minifloat.h"
#include "npz.h"
#include "tensor_file.h"

namespace ge::tools {
namespace {

// Raw outputs of MT19937 seeded with 7, from numpy (MT19937()._legacy_seeding(7), whose
// seeding is std::mt19937's): 327741615 976413892 3349725721 1369975286 1882953283 4201435347.
// Floats are (u >> 8) * 2^-23 - 1, integers u % 5.
TEST(RandomTensorTest, Float32MatchesReferenceSequence) {
  Result<Tensor> t = random_tensor(TensorDesc::of(DataType::kFloat32, {2, 3}), 7);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{2, 3}));
  const float expected[] = {-0.8473834991455078f, -0.5453219413757324f,  0.5598375797271729f,
                            -0.3620556592941284f, -0.12318158149719238f, 0.9564456939697266f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data<float>()[i], expected[i]) << i;
}

TEST(RandomTensorTest, IntegersAreSmall) {
  Result<Tensor> t = random_tensor(TensorDesc::of(DataType::kInt64, {6}), 7);
  ASSERT_TRUE(t.is_ok());
  const int64_t expected[] = {0, 2, 1, 1, 3, 2};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data<int64_t>()[i], expected[i]) << i;
}

TEST(RandomTensorTest, Float16ValuesAreExactAndInRange) {
  Result<Tensor> t = random_tensor(TensorDesc::of(DataType::kFloat16, {64}), 3);
  ASSERT_TRUE(t.is_ok());
  for (int i = 0; i < 64; ++i) {
    const float value = float16_to_float(t->data<uint16_t>()[i]);
    EXPECT_GE(value, -1.0f);
    EXPECT_LT(value, 1.0f);
    EXPECT_EQ(value * 512.0f, std::floor(value * 512.0f)) << value;  // a multiple of 2^-9
  }
}

TEST(RandomTensorTest, SameSeedSameData) {
  const TensorDesc desc = TensorDesc::of(DataType::kFloat64, {5});
  Tensor a = *random_tensor(desc, 11);
  Tensor b = *random_tensor(desc, 11);
  Tensor c = *random_tensor(desc, 12);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.data<double>()[i], b.data<double>()[i]);
  EXPECT_NE(a.data<double>()[0], c.data<double>()[0]);
}

TEST(RandomTensorTest, RefusesDynamicShapesAndStrings) {
  Result<Tensor> dynamic = random_tensor(TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}), 1);
  ASSERT_FALSE(dynamic.is_ok());
  EXPECT_EQ(dynamic.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dynamic.status().message().find("needs a static shape, but the input is float32[N,3]"), std::string::npos)
      << dynamic.status().message();
  Result<Tensor> strings = random_tensor(TensorDesc::of(DataType::kString, {1}), 1);
  ASSERT_FALSE(strings.is_ok());
  EXPECT_EQ(strings.status().code(), StatusCode::kUnsupported);
}

TEST(CheckInputMatchesTest, DtypeRankAndDims) {
  const TensorDesc desc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)});
  EXPECT_TRUE(check_input_matches("x", "x.npy", desc, Tensor::zeros(DataType::kFloat32, {5, 3})).is_ok());
  Status dtype = check_input_matches("x", "x.npy", desc, Tensor::zeros(DataType::kFloat64, {5, 3}));
  EXPECT_EQ(dtype.message(), "input 'x' from 'x.npy' has dtype float64 but the model expects float32[N,3]");
  Status dim = check_input_matches("x", "x.npy", desc, Tensor::zeros(DataType::kFloat32, {5, 4}));
  EXPECT_EQ(dim.message(), "input 'x' from 'x.npy' has shape [5,4] but the model expects float32[N,3]");
  Status rank = check_input_matches("x", "x.npy", desc, Tensor::zeros(DataType::kFloat32, {3}));
  EXPECT_EQ(rank.code(), StatusCode::kInvalidArgument);
}

class BindInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_.add_input("x", TensorDesc::of(DataType::kFloat32, {2}));
    graph_.add_input("y", TensorDesc(DataType::kInt32, {Dim::named("N")}));
    graph_.add_initializer("w", Tensor::from_vector<float>({1}, {1.0f}));
    dir_ = std::filesystem::temp_directory_path() / ("ge_bind_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // int32 [3] = {4, 5, 6}, written by hand in .npy version 1.0.
    const std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\n";
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
    for (char v : {4, 5, 6}) bytes += std::string{v, 0, 0, 0};
    std::ofstream(dir_ / "y.npy", std::ios::binary) << bytes;
    y_file_ = (dir_ / "y.npy").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string error_of(const std::vector<InputSpec>& specs) {
    Result<NamedValues> bound = bind_inputs(graph_, specs);
    EXPECT_FALSE(bound.is_ok());
    return bound.is_ok() ? std::string() : bound.status().message();
  }

  Graph graph_;
  std::filesystem::path dir_;
  std::string y_file_;
};

TEST_F(BindInputsTest, PositionalAndNamed) {
  Result<NamedValues> bound = bind_inputs(graph_, {{std::nullopt, "random"}, {"y", y_file_}});
  ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
  ASSERT_EQ(bound->size(), 2u);
  EXPECT_EQ((*bound)[0].first, "x");
  EXPECT_EQ((*bound)[0].second.tensor.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ((*bound)[1].first, "y");
  EXPECT_EQ((*bound)[1].second.tensor.data<int32_t>()[2], 6);

  // Named first, positional still counts from the first runtime input.
  Result<NamedValues> reordered = bind_inputs(graph_, {{"y", y_file_}, {std::nullopt, "random"}});
  ASSERT_TRUE(reordered.is_ok()) << reordered.status().to_string();
  EXPECT_EQ((*reordered)[0].first, "x");
}

TEST_F(BindInputsTest, Errors) {
  EXPECT_NE(error_of({{"z", "random"}})
                .find("unknown input 'z' in --input z=random; the model's inputs are: "
                      "'x' float32[2], 'y' int32[N]"),
            std::string::npos);
  EXPECT_NE(error_of({{"w", "random"}}).find("(it is an initializer, not a runtime input)"), std::string::npos);
  EXPECT_NE(error_of({{"x", "random"}, {std::nullopt, "random"}})
                .find("input 'x' is bound twice: --input x=random and --input random"),
            std::string::npos);
  EXPECT_NE(error_of({{"x", "random"}}).find("missing input 'y' int32[N]: bind it with --input y=FILE"),
            std::string::npos);
  EXPECT_NE(error_of({{std::nullopt, "random"}, {std::nullopt, y_file_}, {std::nullopt, "random"}})
                .find("more positional inputs than the model has (2)"),
            std::string::npos);
  EXPECT_NE(error_of({{"x", "random"}, {"y", "random"}}).find("needs a static shape"), std::string::npos);
  EXPECT_NE(error_of({{"x", y_file_}, {"y", y_file_}}).find("has dtype int32 but the model expects float32[2]"),
            std::string::npos);
  EXPECT_NE(error_of({{"x", "random"}, {"y", (dir_ / "nope.npy").string()}}).find("nope.npy' does not exist"),
            std::string::npos);
  EXPECT_NE(error_of({{"x", "random"}, {"y", (dir_ / "y.txt").string()}}).find("expected a .npy"), std::string::npos);
}


class BindArchiveTest : public BindInputsTest {
 protected:
  std::string archive(const std::string& name, const NamedArrays& arrays, bool compress = false) {
    const std::filesystem::path path = dir_ / name;
    Result<std::string> bytes = serialize_npz(arrays, compress);
    EXPECT_TRUE(bytes.is_ok()) << bytes.status().to_string();
    std::ofstream(path, std::ios::binary) << *bytes;
    return path.string();
  }
  const Tensor x_ = Tensor::from_vector<float>({2}, {0.5f, 1.5f});
  const Tensor y_ = Tensor::from_vector<int32_t>({4}, {1, 2, 3, 4});
};

TEST_F(BindArchiveTest, BindsArraysByName) {
  const std::string file = archive("both.npz", {{"y", y_}, {"x", x_}}, true);
  Result<NamedValues> bound = bind_inputs(graph_, {{std::nullopt, file}});
  ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
  EXPECT_EQ((*bound)[0].first, "x");
  EXPECT_EQ((*bound)[0].second.tensor.data<float>()[1], 1.5f);
  EXPECT_EQ((*bound)[1].second.tensor.data<int32_t>()[3], 4);
}

TEST_F(BindArchiveTest, BindsNumpyPositionalNamesByPosition) {
  const std::string file = archive("positional.npz", {{"arr_0", x_}, {"arr_1", y_}});
  Result<NamedValues> bound = bind_inputs(graph_, {{std::nullopt, file}});
  ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
  EXPECT_EQ((*bound)[1].second.tensor.shape(), (std::vector<int64_t>{4}));
}

TEST_F(BindArchiveTest, NamedSpecTakesTheNamedOrOnlyArray) {
  const std::string both = archive("both.npz", {{"x", x_}, {"y", y_}});
  const std::string only = archive("only.npz", {{"whatever", y_}});
  Result<NamedValues> bound = bind_inputs(graph_, {{"x", both}, {"y", only}});
  ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
  EXPECT_EQ((*bound)[1].second.tensor.data<int32_t>()[0], 1);
  const std::string other = archive("other.npz", {{"a", y_}, {"b", y_}});
  EXPECT_NE(error_of({{"x", both}, {"y", other}}).find("the archive has no array 'y' and more than one to choose "
                                                      "from: 'a', 'b'"),
            std::string::npos);
}

TEST_F(BindArchiveTest, Errors) {
  const std::string stray = archive("stray.npz", {{"x", x_}, {"z", y_}});
  EXPECT_NE(error_of({{std::nullopt, stray}}).find("the archive's array 'z' names no input of the model"),
            std::string::npos);
  const std::string both = archive("both.npz", {{"x", x_}, {"y", y_}});
  EXPECT_NE(error_of({{std::nullopt, both}, {"x", "random"}})
                .find("input 'x' is bound twice: --input " + both + " (array 'x') and --input x=random"),
            std::string::npos);
  const std::string wrong = archive("wrong.npz", {{"x", y_}, {"y", y_}});
  EXPECT_NE(error_of({{std::nullopt, wrong}}).find("has dtype int32 but the model expects float32[2]"),
            std::string::npos);
  std::ofstream(dir_ / "bad.npz", std::ios::binary) << "not a zip";
  EXPECT_NE(error_of({{std::nullopt, (dir_ / "bad.npz").string()}}).find("is not a valid zip archive"),
            std::string::npos);
}

// Issue 36 item 6: a 3 MB .npz was inflated to 6.3 GB before its shape was checked
// against the model. Now each array's .npy header is read alone and checked first; the
// payload of this archive cannot be read (its CRC is broken), so only checks made before
// reading it can pass or give their own message.
TEST_F(BindArchiveTest, ChecksDeclaredShapesAndSizesBeforeInflating) {
  // x: float32[4194304], 16 MiB of zeros deflated to a few KiB.
  Result<std::string> bytes = serialize_npz({{"x", Tensor::zeros(DataType::kFloat32, {4194304})}}, true);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  const size_t central = bytes->find(std::string("PK\x01\x02", 4));
  ASSERT_NE(central, std::string::npos);
  (*bytes)[central + 16] ^= 0x55;  // the directory's CRC-32 of the member
  const std::string file = (dir_ / "big.npz").string();
  std::ofstream(file, std::ios::binary) << *bytes;

  EXPECT_EQ(error_of({{std::nullopt, file}, {"y", y_file_}}),
            "input 'x' from '--input " + file + " (array 'x')' has shape [4194304] but the model expects float32[2]");

  Graph any_length;
  any_length.add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  Result<NamedValues> bound = bind_inputs(any_length, {{std::nullopt, file}}, size_t{1} << 20);
  ASSERT_FALSE(bound.is_ok());
  EXPECT_EQ(bound.status().message(), "--input " + file + ": " + file +
                                          ":x.npy (<f4 [4194304]) needs 16 MiB; limit 1.0 MiB (raise it with "
                                          "--memory-limit or SessionOptions::memory_limit)");
  // Two arrays that fit one at a time but not together.
  const std::string pair = archive(
      "pair.npz",
      {{"a", Tensor::zeros(DataType::kFloat32, {196608})}, {"b", Tensor::zeros(DataType::kFloat32, {196608})}}, true);
  Graph two;
  two.add_input("a", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  two.add_input("b", TensorDesc(DataType::kFloat32, {Dim::named("N")}));
  bound = bind_inputs(two, {{std::nullopt, pair}}, size_t{1} << 20);
  ASSERT_FALSE(bound.is_ok());
  EXPECT_NE(
      bound.status().message().find("input 'b' from --input " + pair +
                                    " (array 'b') (<f4 [196608]) needs 768 KiB; limit 1.0 MiB, 768 KiB already in use"),
      std::string::npos)
      << bound.status().message();

  // Within the limit, the payload is read, and only now its CRC fails.
  bound = bind_inputs(any_length, {{std::nullopt, file}}, size_t{64} << 20);
  ASSERT_FALSE(bound.is_ok());
  EXPECT_NE(bound.status().message().find("member 'x.npy' fails its CRC-32 check"), std::string::npos)
      << bound.status().message();
}

TEST(BindValuesTest, SequenceInputs) {
  Graph graph;
  TensorDesc sequence(DataType::kFloat32, {Dim::unknown()});
  sequence.kind = ValueKind::kSequence;
  graph.add_input("s", sequence);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ge_bind_values_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const RuntimeValue value = RuntimeValue::of_sequence(
      {Tensor::from_vector<float>({1}, {1}), Tensor::from_vector<float>({2}, {2, 3})}, DataType::kFloat32);
  ASSERT_TRUE(write_value_file(dir / "s.pb", value, "s").is_ok());
  Result<NamedValues> bound = bind_inputs(graph, {{std::nullopt, (dir / "s.pb").string()}});
  ASSERT_TRUE(bound.is_ok()) << bound.status().to_string();
  EXPECT_EQ((*bound)[0].second.sequence.size(), 2u);

  const RuntimeValue ints = RuntimeValue::of_sequence({Tensor::from_vector<int32_t>({1}, {1})}, DataType::kInt32);
  ASSERT_TRUE(write_value_file(dir / "i.pb", ints, "s").is_ok());
  bound = bind_inputs(graph, {{std::nullopt, (dir / "i.pb").string()}});
  ASSERT_FALSE(bound.is_ok());
  EXPECT_NE(bound.status().message().find("sequence element 0: input 's'"), std::string::npos)
      << bound.status().message();
  EXPECT_NE(bound.status().message().find("has dtype int32"), std::string::npos) << bound.status().message();

  Result<NamedTensors> tensors = plain_tensors({{"s", value}}, "--check-passes");
  ASSERT_FALSE(tensors.is_ok());
  EXPECT_EQ(tensors.status().message(),
            "--check-passes takes tensor inputs only, but input 's' is " + value.to_string());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ge::tools
