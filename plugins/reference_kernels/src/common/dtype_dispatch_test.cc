// The one dtype dispatch of the kernel library: a list's dtypes in its order (messages
// name them so), membership, and the instantiation select_kernel picks.

#include "ge/reference_kernels/dtype_dispatch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ge::reference_kernels {
namespace {

/// A distinct kernel per element type, so that the pick can be told apart.
template <typename T>
int tagged_kernel(const KernelArgs&) {
  return static_cast<int>(data_type_of<T>());
}

template <typename List>
KernelFunction pick(DataType dtype) {
  return select_kernel(dtype, List{}, []<typename T>() -> KernelFunction { return &tagged_kernel<T>; });
}

TEST(DtypeDispatch, ListsNameTheirDtypesInOrder) {
  using F = DataType;
  EXPECT_EQ(data_types(FloatingTypes{}), (std::vector<DataType>{F::kFloat32, F::kFloat64, F::kFloat16, F::kBFloat16}));
  EXPECT_EQ(data_types(IntegerTypes{}), (std::vector<DataType>{F::kInt8, F::kInt16, F::kInt32, F::kInt64, F::kUInt8,
                                                               F::kUInt16, F::kUInt32, F::kUInt64}));
  EXPECT_EQ(data_types(Concat<Float32And64Types, BoolTypes, TypeList<std::string>>{}),
            (std::vector<DataType>{F::kFloat32, F::kFloat64, F::kBool, F::kString}));
  EXPECT_EQ(data_types(NumericTypes{}).size(), 12u);
  EXPECT_EQ(data_types(AllTypes{}).size(), 14u);
}

TEST(DtypeDispatch, ContainsOnlyTheListsDtypes) {
  EXPECT_TRUE(contains(FloatingTypes{}, DataType::kBFloat16));
  EXPECT_FALSE(contains(Float32And64Types{}, DataType::kFloat16));
  EXPECT_TRUE(contains(AllTypes{}, DataType::kString));
  EXPECT_FALSE(contains(NumericTypes{}, DataType::kBool));
}

TEST(DtypeDispatch, SelectsTheInstantiationOfTheDtype) {
  EXPECT_EQ(pick<AllTypes>(DataType::kFloat16), &tagged_kernel<Float16>);
  EXPECT_EQ(pick<AllTypes>(DataType::kBFloat16), &tagged_kernel<BFloat16>);
  EXPECT_EQ(pick<AllTypes>(DataType::kString), &tagged_kernel<std::string>);
  EXPECT_EQ(pick<AllTypes>(DataType::kUInt16), &tagged_kernel<uint16_t>);
  EXPECT_EQ(pick<GemmTypes>(DataType::kInt64), &tagged_kernel<int64_t>);
  EXPECT_EQ(pick<GemmTypes>(DataType::kInt8), nullptr) << "not in the list";
  EXPECT_EQ(pick<AllTypes>(DataType::kComplex64), nullptr);
}

}  // namespace
}  // namespace ge::reference_kernels
