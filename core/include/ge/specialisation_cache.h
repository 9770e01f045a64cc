#pragma once
/// Shape-keyed specialisations of a graph whose inputs have symbolic or unknown dims
/// (seed 000's "known shape" path, DESIGN.md §8): the first run with a given signature
/// (the dtype and dims of every runtime input) compiles the graph for exactly those
/// shapes and, when every value then has a static shape and no node runs on the host,
/// loads it into the task sink; when a node still runs on the host (control flow) or a
/// shape stays data-dependent, the compiled graph runs on a per-op executor of its own,
/// which partitions it (ge/executor.h). Later runs with that signature find it with one
/// hash lookup. Entries are evicted least recently used.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/executor.h"
#include "ge/runtime/model_runner.h"
#include "ge/status.h"
#include "ge/tensor_desc.h"

namespace ge {

struct SpecialisationStatistics {
  uint64_t hits = 0;
  uint64_t misses = 0;     ///< signatures compiled (or found dynamic) on a run
  uint64_t evictions = 0;
  uint64_t sunk = 0;       ///< misses that produced a task-sink runner
  uint64_t per_op = 0;     ///< misses whose signature runs on a (partitioning) per-op executor
  uint64_t unseen = 0;     ///< calls answered per op because the signature was not seen often enough
  size_t entries = 0;
  size_t capacity = 0;
  std::chrono::nanoseconds compile_time{0};  ///< all misses together
  std::chrono::nanoseconds last_compile_time{0};
};

/// One compiled signature: a task-sink runner, or a per-op executor of the specialised
/// graph, or neither (the caller's general per-op path runs it).
struct Specialisation {
  std::unique_ptr<ModelRunner> runner;
  std::unique_ptr<Executor> executor;
  /// Neither is set: why the compile refused the signature (its kUnsupported status),
  /// for the message when the caller has no per-op path either.
  Status refusal;
};

class SpecialisationCache {
 public:
  /// Compiles the graph for concrete input descs (one per runtime input). kUnsupported
  /// records the signature as one for the caller's general per-op path; any other error
  /// fails the run.
  using Compile = std::function<Result<Specialisation>(const std::vector<TensorDesc>&)>;

  /// `capacity` of at least 1 entry. With `min_sightings` > 1 a signature is compiled
  /// only when seen that many times (until then find_or_compile answers null, per op):
  /// for shapes that change on every call, such as a loop body's growing state.
  SpecialisationCache(size_t capacity, Compile compile, int min_sightings = 1);

  /// The specialisation for `descs` (static tensor descs), compiling it on a miss; null
  /// while the signature has not been seen `min_sightings` times.
  Result<Specialisation*> find(const std::vector<TensorDesc>& descs);
  /// Its runner; null when the signature does not run in the task sink.
  Result<ModelRunner*> find_or_compile(const std::vector<TensorDesc>& descs);
  /// The same for the dtypes and shapes of `tensors` (no descs built on a hit).
  Result<Specialisation*> find(std::span<const Tensor* const> tensors);
  Result<ModelRunner*> find_or_compile(std::span<const Tensor* const> tensors);

  const SpecialisationStatistics& statistics() const { return statistics_; }
  /// The cached signatures, most recently used first (for -v): "float32[1,8] (task sink,
  /// compiled in 12.3 ms, 40 runs)"; the way of running is "task sink", "partitioned"
  /// (a per-op executor of the specialised graph) or "per op" (refused; the fallback).
  std::vector<std::string> signatures() const;

  /// The signature key of `descs` (dtype and dims of each), and the same of tensors.
  static std::string key_of(const std::vector<TensorDesc>& descs);
  static std::string key_of(std::span<const Tensor* const> tensors);

 private:
  /// The entry for `key`, compiling `descs()` on a miss.
  Result<Specialisation*> find_keyed(std::string key, const std::function<std::vector<TensorDesc>()>& descs);

  struct Entry {
    std::string key;
    std::string summary;
    Specialisation compiled;
    double compile_ms = 0;  // what compiling it took
    uint64_t runs = 1;      // finds of it, the compiling one included
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
