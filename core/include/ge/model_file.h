#pragma once
/// The .gem model file: an optimised graph that loads and runs without the parser or the
/// pass pipeline.
///
/// Layout (all integers little-endian):
///   offset  0  magic "GEMODEL\0" (8 bytes)
///           8  uint32 format version (kModelFileFormatVersion)
///          12  uint32 flags (no flag is defined yet: any set bit is refused)
///          16  uint64 payload size: bytes after the 40-byte header (the whole rest of the file)
///          24  uint64 checksum of the payload: XXH3-64 (version 1: FNV-1a)
///          32  uint32 table size: bytes of the PartitionTable protobuf opening the payload
///          36  uint32 reserved, 0
///   payload: PartitionTable (core/proto/gem.proto), then the partitions, each at an
///   offset from the start of the file aligned to kModelFileAlignment:
///     graph      the optimised graph in the text IR (ge/graph_text.h), every top-level
///                non-string initializer replaced by an empty placeholder of its dtype;
///     weights    the raw bytes of those initializers, each at a multiple of
///                kModelFileWeightAlignment from the partition's start, identical ones
///                once (their directory entries share it): the task sink's weights
///                region as it lays it out, which it loads in one copy;
///     model info a ModelInfo protobuf: backend, precision, required plugins, the weight
///                directory, inputs, outputs, op histogram;
///   and, when the model runs through the task sink (static shapes), its execution plans
///   (ge/runtime/model_runner.h CompiledPlans), which load uses instead of planning again
///   after validating each against the graph:
///     memory plan   the feature-map buffer offsets the memory assigners chose, the
///                   atomic-clean groups, and figures;
///     stream plan   the execution order, each step's stream and the cross-stream events;
///     task defs     every stream's task list (kernel launches with their addresses,
///                   copies, atomic-clean memsets, event record/wait);
///     kernel meta   each step's kernel name, workspace size and what it needs zeroed.
/// Loading checks the header, the checksum, every offset and size, then parses; nothing
/// is allocated for a size the file does not hold.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/graph.h"
#include "ge/memory_plan.h"
#include "ge/plugin_host.h"
#include "ge/precision.h"
#include "ge/runtime/model_runner.h"
#include "ge/session.h"
#include "ge/status.h"

namespace ge {

inline constexpr char kModelFileMagic[8] = {'G', 'E', 'M', 'O', 'D', 'E', 'L', '\0'};
// 2: execution plan partitions; 3: weights of identical bytes share one directory range;
// 4: atomic clean (memset tasks, clean groups, what each kernel needs zeroed). Older files
// load: their kernels needed nothing zeroed, which load checks against the backend's.
// 5: the precision (ModelInfo.precision); older files are fp32.
inline constexpr uint32_t kModelFileFormatVersion = 5;
inline constexpr size_t kModelFileHeaderBytes = 40;
inline constexpr size_t kModelFileAlignment = 64;
/// Weights lie at multiples of this in their partition: the task sink's weights alignment.
inline constexpr size_t kModelFileWeightAlignment = 512;
/// Files larger than this are refused before they are read (16 GiB).
inline constexpr uint64_t kModelFileMaxBytes = uint64_t{16} << 30;

/// Partition kinds, as stored in the table (gem.proto PartitionKind).
enum class ModelPartitionKind : uint32_t {
  kGraph = 1,
  kWeights = 2,
  kModelInfo = 3,
  kMemoryPlan = 4,
  kStreamPlan = 5,
  kTaskDefs = 6,
  kKernelMeta = 7,
  kGears = 8,
};

/// A plugin the model needs at load time, with the version it was compiled against.
struct RequiredPlugin {
  std::string name;
  std::string version;
  std::string kind;  ///< plugin_kind_name()
};

/// What a .gem file says about itself (ge-compile --info).
struct ModelFileInfo {
  uint32_t format_version = kModelFileFormatVersion;
  std::string backend = "cpu";
  int opt_level = 2;
  /// The precision its kernels were prepared in (Session::precision()); a run loads it in
  /// that precision. fp32 in files before format 5.
  Precision precision = Precision::kFp32;
  std::string producer;
  std::string source_model;
  std::vector<RequiredPlugin> plugins;
  std::vector<std::pair<std::string, std::string>> inputs;   ///< runtime inputs: name, type
  std::vector<std::pair<std::string, std::string>> outputs;  ///< name, type
  std::vector<std::pair<std::string, uint64_t>> op_histogram;  ///< "[domain::]Op", count
  uint64_t weights_bytes = 0;  ///< initializer bytes in the weights partition (identical ones once)
  uint64_t weight_count = 0;
  uint64_t merged_weight_count = 0;  ///< set when read: weights stored in another's bytes
  uint64_t node_count = 0;
  uint64_t file_bytes = 0;     ///< set when read
  /// Execution figures, set when the file holds plans (task sink).
  bool has_plans = false;
  uint64_t stream_count = 0, event_count = 0, task_count = 0;
  bool memory_planned = false;
  std::string memory_assigner;
  uint64_t feature_map_bytes = 0, lower_bound_bytes = 0, no_reuse_bytes = 0, io_bytes = 0;
  std::vector<CleanGroup> clean_groups;  ///< atomic clean (format 4)
  /// Per dynamic gear, when read: its runtime inputs (name, type).
  std::vector<std::vector<std::pair<std::string, std::string>>> gear_inputs;
};

struct LoadedModelFile {
  ModelFileInfo info;
  std::unique_ptr<Graph> graph;
  /// The stored plans (structurally decoded, not yet validated against the graph:
  /// ModelRunner::load does that); empty when the model runs per op.
  std::optional<CompiledPlans> plans;
  /// Dynamic gears (GE's dynamic batch/resolution): the model compiled statically for
  /// given input shapes, each a whole model file with its own graph, weights and plans.
  /// A gear holds no gears.
  std::vector<LoadedModelFile> gears;
};

/// The header checksum of a payload: XXH3-64 (seed 0) from format version 2, 64-bit
/// FNV-1a in version 1 files.
uint64_t model_file_checksum(std::string_view bytes, uint32_t format_version = kModelFileFormatVersion);

/// Serialises `graph` (already optimised; its initializers become the weights partition).
/// `info` supplies backend, opt level, producer, source and plugins; the graph-derived
/// fields are computed here.
/// `plans` (optional) are a ModelRunner's compiled_plans() for `graph` (node indices into
/// its node list) and `memory` the statistics of its memory plan, for --info.
/// `gears` are serialised model files of the same model compiled for fixed input shapes
/// (each with plans, none with gears of its own).
Result<std::string> serialize_model_file(const Graph& graph, const ModelFileInfo& info,
                                         const CompiledPlans* plans = nullptr, const MemoryStatistics* memory = nullptr,
                                         const std::vector<std::string>& gears = {});
Status write_model_file(const std::filesystem::path& path, const Graph& graph, const ModelFileInfo& info,
                        const CompiledPlans* plans = nullptr, const MemoryStatistics* memory = nullptr,
                        const std::vector<std::string>& gears = {});

/// Verifies and decodes a whole file image. `origin` names it in errors.
Result<LoadedModelFile> deserialize_model_file(std::string_view bytes, const std::string& origin);
/// Same, reading `path` (refused when larger than kModelFileMaxBytes).
Result<LoadedModelFile> read_model_file(const std::filesystem::path& path);

/// The plugins of `host` a model compiled for `backend` needs: the backend's plugin and
/// every op library (parsers and passes are not needed to load).
std::vector<RequiredPlugin> required_plugins(const PluginHost& host, const std::string& backend);
/// kNotFound naming a required plugin `host` did not load, or kInvalidArgument naming one
/// loaded with another version.
Status check_required_plugins(const ModelFileInfo& info, const PluginHost& host);

/// Multi-line report for ge-compile --info.
std::string describe_model_file(const ModelFileInfo& info);

/// Loads a .gem file and builds a session on `options.backend` (must equal the file's
/// backend) without running the pass pipeline or the planners: the graph is verified and
/// re-inferred, and the stored plans are validated and loaded into the task sink (a file
/// whose plans do not hold is refused, never run per op). `host` must outlive the session.
/// It runs in the precision it was compiled with: options.precision kFp32 (the default)
/// takes the file's, another must equal it (kInvalidArgument naming both; its stored kernels
/// are of that precision). A file of bf16/mixed with stored plans on a backend without that
/// arithmetic is kUnsupported (recompile it); one run per op falls back to float32 as a
/// session does.
Result<std::unique_ptr<Session>> create_session_from_model_file(const PluginHost& host,
                                                                 const std::filesystem::path& path,
                                                                 const SessionOptions& options);

}  // namespace ge
