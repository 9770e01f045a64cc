// Shape-keyed specialisations of a graph (ge/specialisation_cache.h).
#include "ge/specialisation_cache.h"

#include <algorithm>
#include <cstring>

#include "ge/logging.h"

namespace ge {

SpecialisationCache::SpecialisationCache(size_t capacity, Compile compile, int min_sightings)
    : capacity_(std::max<size_t>(capacity, 1)), compile_(std::move(compile)), min_sightings_(min_sightings) {
  statistics_.capacity = capacity_;
}

namespace {
void append_signature(std::string& key, DataType dtype, const int64_t* dims, int64_t rank) {
  const int64_t header[2] = {static_cast<int64_t>(dtype), rank};
  key.append(reinterpret_cast<const char*>(header), sizeof(header));
  if (rank > 0) key.append(reinterpret_cast<const char*>(dims), static_cast<size_t>(rank) * sizeof(int64_t));
}
}  // namespace

std::string SpecialisationCache::key_of(const std::vector<TensorDesc>& descs) {
  std::string key;
  for (const TensorDesc& desc : descs) {
    const std::vector<int64_t> dims = desc.shape ? desc.static_dims() : std::vector<int64_t>{};
    append_signature(key, desc.dtype, dims.data(), desc.shape ? static_cast<int64_t>(dims.size()) : -1);
  }
  return key;
}

std::string SpecialisationCache::key_of(std::span<const Tensor* const> tensors) {
  std::string key;
  key.reserve(tensors.size() * 48);
  for (const Tensor* t : tensors) append_signature(key, t->dtype(), t->shape().data(), t->rank());
  return key;
}

Result<Specialisation*> SpecialisationCache::find(std::span<const Tensor* const> tensors) {
  return find_keyed(key_of(tensors), [tensors] {
    std::vector<TensorDesc> descs;
    descs.reserve(tensors.size());
    for (const Tensor* t : tensors) descs.push_back(TensorDesc::of(t->dtype(), t->shape()));
    return descs;
  });
}

Result<ModelRunner*> SpecialisationCache::find_or_compile(std::span<const Tensor* const> tensors) {
  GE_ASSIGN_OR_RETURN(Specialisation * found, find(tensors));
  return found != nullptr ? found->runner.get() : nullptr;
}

Result<ModelRunner*> SpecialisationCache::find_or_compile(const std::vector<TensorDesc>& descs) {
  GE_ASSIGN_OR_RETURN(Specialisation * found, find(descs));
  return found != nullptr ? found->runner.get() : nullptr;
}

Result<Specialisation*> SpecialisationCache::find(const std::vector<TensorDesc>& descs) {
  return find_keyed(key_of(descs), [&descs] { return descs; });
}

Result<Specialisation*> SpecialisationCache::find_keyed(std::string key,
                                                        const std::function<std::vector<TensorDesc>()>& make_descs) {
  if (auto found = index_.find(key); found != index_.end()) {
    ++statistics_.hits;
    ++found->second->runs;
    if (found->second != entries_.begin()) entries_.splice(entries_.begin(), entries_, found->second);
    return &entries_.front().compiled;
  }
  if (min_sightings_ > 1) {
    if (sightings_.size() > 16 * capacity_) sightings_.clear();  // bounded: forget old sightings
    if (++sightings_[key] < min_sightings_) {
      ++statistics_.unseen;
      return static_cast<Specialisation*>(nullptr);
    }
    sightings_.erase(key);
  }
  const std::vector<TensorDesc> descs = make_descs();
  ++statistics_.misses;
  std::string summary;
  for (const TensorDesc& desc : descs) summary += (summary.empty() ? "" : ", ") + desc.to_string();
  const auto start = std::chrono::steady_clock::now();
  Result<Specialisation> compiled = compile_(descs);
  statistics_.last_compile_time = std::chrono::steady_clock::now() - start;
  statistics_.compile_time += statistics_.last_compile_time;
  Specialisation specialisation;
  if (compiled.is_ok()) {
    specialisation = std::move(compiled).value();
    ++(specialisation.runner ? statistics_.sunk : statistics_.per_op);
    GE_LOG_INFO("specialised to ({}) in {:.1f} ms: {}", summary,
                std::chrono::duration<double, std::milli>(statistics_.last_compile_time).count(),
                specialisation.runner ? "task sink" : "a partitioned per-op executor");
  } else if (compiled.status().code() == StatusCode::kUnsupported) {
    ++statistics_.per_op;
    specialisation.refusal = compiled.status();
    GE_LOG_INFO("specialised to ({}): runs per op: {}", summary, compiled.status().message());
  } else {
    return compiled.status().with_context("specialising to input shapes (" + summary + ")");
  }
  if (entries_.size() >= capacity_) {
    index_.erase(entries_.back().key);
    entries_.pop_back();
    ++statistics_.evictions;
  }
  entries_.push_front(Entry{key, std::move(summary), std::move(specialisation),
                            std::chrono::duration<double, std::milli>(statistics_.last_compile_time).count()});
  index_.emplace(std::move(key), entries_.begin());
  statistics_.entries = entries_.size();
  return &entries_.front().compiled;
}

std::vector<std::string> SpecialisationCache::signatures() const {
  std::vector<std::string> result;
  for (const Entry& entry : entries_) {
    const char* way = entry.compiled.runner ? "task sink" : entry.compiled.executor ? "partitioned" : "per op";
    result.push_back(fmt::format("{} ({}, compiled in {:.1f} ms, {} run{})", entry.summary, way, entry.compile_ms,
                                 entry.runs, entry.runs == 1 ? "" : "s"));
  }
  return result;
}

}  // namespace ge
