// A model runner's weights region: in place over the constants' own bytes on a
// host-accessible device, else one device block filled with merged copies; shrink drops
// the host copies after (ModelRunner::Impl).
#include "model_runner_impl.h"

#include <algorithm>
#include <cstring>

namespace ge {

const char* ModelRunner::Impl::weight_at(size_t offset) const {
  if (!weights_in_place) return static_cast<const char*>(weights) + offset;
  auto after = std::upper_bound(host_weights.begin(), host_weights.end(), offset,
                                [](size_t at, const HostWeight& w) { return at < w.offset; });
  if (after == host_weights.begin()) return nullptr;
  const HostWeight& w = *(after - 1);
  return offset < w.offset + std::max<size_t>(w.bytes, 1) ? w.data + (offset - w.offset) : nullptr;
}

Status ModelRunner::Impl::reserve_weights() {
  weights_in_place = device->host_accessible();
  host_weights.clear();
  if (!weights_in_place) {
    GE_RETURN_IF_ERROR(check_region("weights", weights_bytes));
    GE_ASSIGN_OR_RETURN(weights, device->allocate(std::max<size_t>(weights_bytes, 1), arena_alignment));
  }
  for (const auto& [value, offset] : weight_offsets) {
    const Tensor& data = *value->constant();
    host_weights.push_back({offset, data.byte_size(), static_cast<const char*>(data.raw_data()), &data});
  }
  return Status::ok();
}

Status ModelRunner::Impl::settle_weights(const std::string& where) {
  std::sort(host_weights.begin(), host_weights.end(),
            [](const HostWeight& a, const HostWeight& b) { return a.offset < b.offset; });
  if (weights_in_place) {
    bool resolved = true;
    for (const auto& [value, at] : placement.location) {
      if (at.region == Location::Region::kWeights && weight_at(at.offset) == nullptr) resolved = false;
    }
    if (resolved) return Status::ok();
    GE_RETURN_IF_ERROR(check_region("weights", weights_bytes));
    GE_ASSIGN_OR_RETURN(weights, device->allocate(std::max<size_t>(weights_bytes, 1), runner::kArenaAlignment));
    weights_in_place = false;
  }
  GE_RETURN_IF_ERROR(upload_weights(where));
  host_weights.clear();  // the block holds them now: the constants may go (shrink)
  return Status::ok();
}

Status ModelRunner::Impl::upload_weights(const std::string& where) {
  constexpr size_t kDirectCopyBytes = size_t{64} << 10;
  constexpr size_t kStagingImageBytes = size_t{16} << 20;
  constexpr size_t kMaxPadding = 4096;  // between two weights of one block copied together
  char* base = static_cast<char*>(weights);
  std::vector<char> image;                                     // region bytes [image_begin, image_begin + image.size())
  image.reserve(std::min(weights_bytes, kStagingImageBytes));  // pages are touched as filled
  size_t image_begin = 0;
  auto flush = [&]() -> Status {
    if (image.empty()) return Status::ok();
    Status copied = device->copy_to_device(base + image_begin, image.data(), image.size());
    image.clear();
    return copied.with_context(where + ": copying weights");
  };
  const auto address = [](const HostWeight& w) { return reinterpret_cast<uintptr_t>(w.data); };
  for (size_t i = 0; i < host_weights.size();) {  // sorted by offset
    const HostWeight& first = host_weights[i];
    if (first.bytes == 0) {
      ++i;
      continue;
    }
    // The piece [i, j): weights laid out in first's block as in the region.
    size_t j = i + 1, end = first.offset + first.bytes;
    for (; j < host_weights.size(); ++j) {
      const HostWeight& w = host_weights[j];
      if (w.bytes == 0) continue;
      if (first.tensor == nullptr || w.tensor == nullptr || !w.tensor->shares_storage_with(*first.tensor) ||
          w.offset < end || w.offset - end > kMaxPadding || address(w) - address(first) != w.offset - first.offset) {
        break;
      }
      end = w.offset + w.bytes;
    }
    const size_t bytes = end - first.offset;
    if (bytes >= kDirectCopyBytes) {
      // The staged image goes first: a small weight after this piece would stretch the
      // image over it, and flushing that zero-filled span would erase it (a 64 KiB
      // weight, exactly the threshold, left a gap the flush rule let through).
      GE_RETURN_IF_ERROR(flush());
      GE_RETURN_IF_ERROR(
          device->copy_to_device(base + first.offset, first.data, bytes).with_context(where + ": copying weights"));
    } else {
      if (!image.empty() &&
          (first.offset - (image_begin + image.size()) > kDirectCopyBytes || end - image_begin > kStagingImageBytes)) {
        GE_RETURN_IF_ERROR(flush());
      }
      if (image.empty()) image_begin = first.offset;
      image.resize(end - image_begin, '\0');
      std::memcpy(image.data() + (first.offset - image_begin), first.data, bytes);
    }
    i = j;
  }
  return flush();
}

void ModelRunner::Impl::release_host_weights() {
  if (device->host_accessible() || weights == nullptr) return;
  for (Value* init : graph->initializers()) {
    const Tensor* data = init->constant();
    if (data == nullptr || data->dtype() == DataType::kString || data->raw_data() == nullptr) continue;
    TensorDesc desc = init->desc();  // its format, say, as it was
    graph->set_constant(init, Tensor::borrow(data->dtype(), data->shape(), nullptr));
    init->set_desc(std::move(desc));
  }
}

}  // namespace ge
