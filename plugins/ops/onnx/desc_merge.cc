#include "desc_merge.h"

#include <string>

#include "ge/data_type.h"

namespace ge::onnx_ops {
namespace {

bool says_nothing(const TensorDesc& desc) {
  return desc.kind == ValueKind::kTensor && desc.dtype == DataType::kUndefined && !desc.has_rank();
}

std::string conflict_prefix(const std::string& what, const TensorDesc& existing,
                            const TensorDesc& inferred) {
  return what + ": inferred " + inferred.to_string() + " conflicts with existing " +
         existing.to_string() + ": ";
}

}  // namespace

Result<TensorDesc> merge_inferred_desc(const TensorDesc& existing, const TensorDesc& inferred,
                                       const std::string& what) {
  if (says_nothing(inferred)) return existing;
  if (existing.dtype == DataType::kUndefined && !existing.has_rank()) return inferred;

  if (existing.kind != inferred.kind) {
    return invalid_argument(conflict_prefix(what, existing, inferred) + "different value kinds");
  }
  TensorDesc merged = existing;
  if (inferred.dtype != DataType::kUndefined) {
    if (existing.dtype != DataType::kUndefined && existing.dtype != inferred.dtype) {
      return invalid_argument(conflict_prefix(what, existing, inferred) + "dtype " +
                              std::string(data_type_name(inferred.dtype)) + " vs " +
                              std::string(data_type_name(existing.dtype)));
    }
    merged.dtype = inferred.dtype;
  }
  if (!inferred.has_rank()) return merged;
  if (!existing.has_rank()) {
    merged.shape = inferred.shape;
    return merged;
  }
  const std::vector<Dim>& old_dims = *existing.shape;
  const std::vector<Dim>& new_dims = *inferred.shape;
  if (old_dims.size() != new_dims.size()) {
    return invalid_argument(conflict_prefix(what, existing, inferred) + "rank " +
                            std::to_string(new_dims.size()) + " vs " +
                            std::to_string(old_dims.size()));
  }
  for (size_t i = 0; i < new_dims.size(); ++i) {
    const Dim& old_dim = old_dims[i];
    const Dim& new_dim = new_dims[i];
    Dim& out = (*merged.shape)[i];
    if (new_dim.is_static()) {
      if (old_dim.is_static() && old_dim.value != new_dim.value) {
        return invalid_argument(conflict_prefix(what, existing, inferred) + "dim " +
                                std::to_string(i) + " is " + std::to_string(new_dim.value) +
                                " vs " + std::to_string(old_dim.value));
      }
      out = new_dim;
    } else if (old_dim.is_static()) {
      out = old_dim;  // a static extent is more precise than any symbol
    } else if (!new_dim.symbol.empty()) {
      out = new_dim;
    } else {
      out = old_dim;  // named or unknown: inference added nothing
    }
  }
  return merged;
}

}  // namespace ge::onnx_ops
