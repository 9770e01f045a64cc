// Weight merging (core/src/passes/weight_merging.h): identical constants stored once.
#include "weight_merging.h"

#include <cstring>
#include <unordered_map>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ge {
namespace {

bool mergeable(const Tensor* t) {
  return t != nullptr && t->defined() && t->dtype() != DataType::kString && t->raw_data() != nullptr &&
         t->byte_size() > 0;
}

}  // namespace

uint64_t constant_bytes_hash(const Tensor& tensor) {
  if (tensor.raw_data() == nullptr) return 0;
  return XXH3_64bits(tensor.raw_data(), tensor.byte_size());
}

std::vector<size_t> find_identical_bytes(std::span<const Tensor* const> tensors) {
  std::vector<size_t> first(tensors.size());
  std::unordered_map<size_t, std::vector<size_t>> by_size;
  for (size_t i = 0; i < tensors.size(); ++i) {
    first[i] = i;
    if (mergeable(tensors[i])) by_size[tensors[i]->byte_size()].push_back(i);
  }
  for (const auto& [bytes, group] : by_size) {
    if (group.size() < 2) continue;  // a unique size: its contents are never read
    std::unordered_map<uint64_t, std::vector<size_t>> kept;  // hash -> first holders
    for (size_t i : group) {
      const void* data = tensors[i]->raw_data();
      std::vector<size_t>& bucket = kept[constant_bytes_hash(*tensors[i])];
      size_t same = i;
      for (size_t k : bucket) {
        const void* other = tensors[k]->raw_data();
        if (other == data || std::memcmp(other, data, bytes) == 0) {
          same = k;
          break;
        }
      }
      if (same == i) {
        bucket.push_back(i);
      } else {
        first[i] = same;
      }
    }
  }
  return first;
}

size_t share_identical_constants(Graph& graph) {
  const std::vector<Value*> initializers = graph.initializers();
  std::vector<const Tensor*> tensors;
  tensors.reserve(initializers.size());
  for (const Value* value : initializers) tensors.push_back(value->constant());
  const std::vector<size_t> first = find_identical_bytes(tensors);
  size_t shared = 0;
  for (size_t i = 0; i < initializers.size(); ++i) {
    if (first[i] == i) continue;
    const Tensor& kept = *tensors[first[i]];
    const Tensor& mine = *tensors[i];
    if (kept.dtype() != mine.dtype() || kept.shape() != mine.shape()) continue;
    if (kept.raw_data() != mine.raw_data()) {
      // A copy of the Tensor shares its storage. The desc (its format, say) stays as it was.
      TensorDesc desc = initializers[i]->desc();
      graph.set_constant(initializers[i], kept);
      initializers[i]->set_desc(std::move(desc));
    }
    ++shared;
  }
  return shared;
}

}  // namespace ge
