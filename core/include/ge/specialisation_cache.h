#pragma once
/// Shape-keyed specialisations of a graph whose inputs have symbolic or unknown dims
/// (seed 000's "known shape" path, DESIGN.md §8): the first run with a given signature
/// (the dtype and dims of every runtime input) compiles the graph for exactly those
/// shapes and, when every value then has a static shape and no node runs on the host,
/// loads it into the task sink. Later runs with that signature find the runner with one
/// hash lookup. A signature that stays dynamic is remembered too (as "per op", with the
/// reason), so it is not compiled again. Entries are evicted least recently used.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/runtime/model_runner.h"
#include "ge/status.h"
#include "ge/tensor_desc.h"

namespace ge {

struct SpecialisationStatistics {
  uint64_t hits = 0;
  uint64_t misses = 0;     ///< signatures compiled (or found dynamic) on a run
  uint64_t evictions = 0;
  uint64_t sunk = 0;       ///< misses that produced a task-sink runner
  uint64_t per_op = 0;     ///< misses whose signature still needs the per-op executor
  uint64_t unseen = 0;     ///< calls answered per op because the signature was not seen often enough
  size_t entries = 0;
  size_t capacity = 0;
  std::chrono::nanoseconds compile_time{0};  ///< all misses together
  std::chrono::nanoseconds last_compile_time{0};
};

class SpecialisationCache {
 public:
  /// Compiles the graph for concrete input descs (one per runtime input). Returns the
  /// runner, or kUnsupported when that specialisation cannot be sunk (the per-op
  /// executor runs it); any other error fails the run.
  using Compile = std::function<Result<std::unique_ptr<ModelRunner>>(const std::vector<TensorDesc>&)>;

  /// `capacity` of at least 1 entry. With `min_sightings` > 1 a signature is compiled
  /// only when seen that many times (until then find_or_compile answers null, per op):
  /// for shapes that change on every call, such as a loop body's growing state.
  SpecialisationCache(size_t capacity, Compile compile, int min_sightings = 1);

  /// The runner for `descs` (static tensor descs), compiling it on a miss; null when
  /// that signature runs per op.
  Result<ModelRunner*> find_or_compile(const std::vector<TensorDesc>& descs);

  const SpecialisationStatistics& statistics() const { return statistics_; }
  /// "a,b" summaries of the cached signatures, most recently used first (for -v).
  std::vector<std::string> signatures() const;

  /// The signature key of `descs` (dtype and dims of each).
  static std::string key_of(const std::vector<TensorDesc>& descs);

 private:
  struct Entry {
    std::string key;
    std::string summary;
    std::unique_ptr<ModelRunner> runner;  // null: per op
  };
  size_t capacity_;
  Compile compile_;
  int min_sightings_;
  std::unordered_map<std::string, int> sightings_;  // signatures not compiled yet
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  SpecialisationStatistics statistics_;
};

}  // namespace ge
