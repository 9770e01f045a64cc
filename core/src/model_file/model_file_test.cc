// Tests of .gem model files: writing, reading and rejecting corrupt ones (ge/model_file.h).
#include "ge/model_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ge/graph_text.h"

namespace ge {
namespace {

// ---- an independent encoder for the documented layout (header + protobuf wire format) ----

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void field_varint(std::string& out, int field, uint64_t v) {
  varint(out, static_cast<uint64_t>(field) << 3);
  varint(out, v);
}
void field_bytes(std::string& out, int field, const std::string& bytes) {
  varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  varint(out, bytes.size());
  out += bytes;
}
void le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct RawPartition {
  uint32_t kind;
  std::string bytes;
  int64_t offset_override = -1;  // absolute file offset written in the table instead
  int64_t size_override = -1;
};

/// Header + table + partitions back to back (table first, fixed 96-byte slot), signed.
std::string assemble(const std::vector<RawPartition>& parts, uint32_t version = 1, uint32_t flags = 0) {
  constexpr size_t kTableSlot = 96;
  std::string table;
  size_t cursor = kModelFileHeaderBytes + kTableSlot;
  std::string data;
  for (const RawPartition& p : parts) {
    std::string entry;
    field_varint(entry, 1, p.kind);
    field_varint(entry, 2, p.offset_override >= 0 ? static_cast<uint64_t>(p.offset_override) : cursor);
    field_varint(entry, 3, p.size_override >= 0 ? static_cast<uint64_t>(p.size_override) : p.bytes.size());
    field_bytes(table, 1, entry);
    cursor += p.bytes.size();
    data += p.bytes;
  }
  EXPECT_LE(table.size(), kTableSlot);
  // Pad the table slot with a protobuf-neutral filler: an unknown length-delimited field 15.
  std::string payload = table;
  const size_t pad = kTableSlot - table.size();
  payload.push_back(static_cast<char>((15 << 3) | 2));
  payload.push_back(static_cast<char>(pad - 2));
  payload.append(pad - 2, '\0');
  payload += data;
  std::string file(kModelFileMagic, 8);
  le(file, version, 4);
  le(file, flags, 4);
  le(file, payload.size(), 8);
  le(file, model_file_checksum(payload, version), 8);
  le(file, kTableSlot, 4);
  le(file, 0, 4);
  return file + payload;
}

/// ModelInfo with one weight entry (field numbers from gem.proto).
std::string model_info_with_weight(const std::string& name, int dtype, std::vector<int64_t> shape, uint64_t offset,
                                   uint64_t size, uint64_t total) {
  std::string entry, shape_bytes, info;
  field_bytes(entry, 1, name);
  field_varint(entry, 2, static_cast<uint64_t>(dtype));
  for (int64_t d : shape) varint(shape_bytes, static_cast<uint64_t>(d));
  field_bytes(entry, 3, shape_bytes);
  field_varint(entry, 4, offset);
  field_varint(entry, 5, size);
  field_bytes(info, 1, "cpu");
  field_bytes(info, 6, entry);
  field_varint(info, 10, total);
  return info;
}

const std::string kOneWeightGraph = "graph main {\n  init %w : float32[0] = []\n  output %w\n}\n";

std::string one_weight_file(std::vector<int64_t> shape, uint64_t size, uint64_t offset = 0) {
  std::string weights(16, '\0');
  const float values[4] = {1.5f, -2.f, 0.25f, 8.f};
  std::memcpy(weights.data(), values, 16);
  return assemble({{3, model_info_with_weight("w", 1, shape, offset, size, size)}, {1, kOneWeightGraph}, {2, weights}});
}

std::unique_ptr<Graph> sample_graph() {
  auto g = std::make_unique<Graph>("main");
  g->set_opset_import("", 17);
  Value* x = g->add_input("x", TensorDesc(DataType::kFloat32, {Dim::named("N"), Dim::of(3)}));
  Value* w = g->add_initializer("w", Tensor::from_vector<float>({1, 3}, {0.5f, -1.25f, 3.0e-8f}));
  Value* shape = g->add_initializer("shape", Tensor::from_vector<int64_t>({2}, {-1, 3}));
  g->add_initializer("names", Tensor::from_strings({2}, {"a", "b\n"}));
  Value* empty = g->add_initializer("empty", Tensor::zeros(DataType::kFloat32, {0, 3}));
  Node* add = g->add_node("Add", {x, w}, 1, "add", {"y"});
  Node* reshape = g->add_node("Reshape", {add->output(0), shape}, 1, "reshape", {"z"});
  Node* fused = g->add_node("FusedThing", {reshape->output(0), empty}, 1, "fused", {"f"}, "ge.fused");
  g->add_output(fused->output(0));
  return g;
}

TEST(ModelFile, ChecksumIsXxh3ThenFnv1aInVersion1) {
  // Reference values of 64-bit FNV-1a (version 1 files).
  EXPECT_EQ(model_file_checksum("", 1), 0xcbf29ce484222325ull);
  EXPECT_EQ(model_file_checksum("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(model_file_checksum("foobar", 1), 0x85944171f73967e8ull);
  // XXH3-64 with seed 0 (version 2 on).
  EXPECT_EQ(model_file_checksum("", 2), 0x2d06800538d394c2ull);
  EXPECT_NE(model_file_checksum("a", 2), model_file_checksum("b", 2));
}

TEST(ModelFile, RoundTripKeepsGraphAndWeightsExactly) {
  std::unique_ptr<Graph> g = sample_graph();
  ModelFileInfo info;
  info.backend = "cpu";
  info.opt_level = 3;
  info.producer = "test";
  info.plugins = {{"ops", "1.2.3", "op_library"}};
  Result<std::string> bytes = serialize_model_file(*g, info);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  ASSERT_EQ(bytes->substr(0, 8), std::string("GEMODEL\0", 8));

  Result<LoadedModelFile> loaded = deserialize_model_file(*bytes, "mem");
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded->graph), print_graph(*g));
  const Value* w = loaded->graph->find_value("w");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->is_constant());
  EXPECT_EQ(w->constant()->shape(), (std::vector<int64_t>{1, 3}));
  const float* data = w->constant()->data<float>();
  EXPECT_EQ(data[0], 0.5f);
  EXPECT_EQ(data[1], -1.25f);
  EXPECT_EQ(data[2], 3.0e-8f);
  EXPECT_EQ(loaded->graph->find_value("empty")->constant()->shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(loaded->info.backend, "cpu");
  EXPECT_EQ(loaded->info.opt_level, 3);
  EXPECT_EQ(loaded->info.weight_count, 3u);      // w, shape, empty (strings stay in the text)
  EXPECT_EQ(loaded->info.weights_bytes, 12u + 16u);  // 3 floats + 2 int64
  EXPECT_EQ(loaded->info.node_count, 3u);
  ASSERT_EQ(loaded->info.plugins.size(), 1u);
  EXPECT_EQ(loaded->info.plugins[0].version, "1.2.3");
  ASSERT_EQ(loaded->info.inputs.size(), 1u);
  EXPECT_EQ(loaded->info.inputs[0].first, "x");
  EXPECT_EQ(loaded->info.op_histogram,
            (std::vector<std::pair<std::string, uint64_t>>{{"Add", 1}, {"Reshape", 1}, {"ge.fused::FusedThing", 1}}));
  EXPECT_EQ(loaded->info.file_bytes, bytes->size());
  const std::string described = describe_model_file(loaded->info);
  EXPECT_NE(described.find("ops 1.2.3 (op_library)"), std::string::npos) << described;
  EXPECT_NE(described.find("weights: 3 tensors, 28 bytes"), std::string::npos) << described;
}

TEST(ModelFile, NamesThatAreNotUtf8RoundTrip) {
  // The text IR allows any byte string as a name; the weight directory must too.
  auto g = std::make_unique<Graph>("main");
  Value* w = g->add_initializer("w\xff\x01", Tensor::from_vector<float>({2}, {1.f, 2.f}));
  g->add_output(w);
  Result<std::string> bytes = serialize_model_file(*g, ModelFileInfo{});
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  Result<LoadedModelFile> loaded = deserialize_model_file(*bytes, "mem");
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  const Value* back = loaded->graph->find_value("w\xff\x01");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->constant()->data<float>()[1], 2.f);
}

TEST(ModelFile, HandAssembledFileLoads) {
  Result<LoadedModelFile> loaded = deserialize_model_file(one_weight_file({2, 2}, 16), "hand.gem");
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  const Tensor* w = loaded->graph->find_value("w")->constant();
  ASSERT_EQ(w->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(w->data<float>()[0], 1.5f);
  EXPECT_EQ(w->data<float>()[3], 8.f);
}

TEST(ModelFile, PrecisionRoundTripsAndOlderFilesAreFp32) {
  for (Precision precision : {Precision::kFp32, Precision::kBf16, Precision::kMixed}) {
    ModelFileInfo info;
    info.precision = precision;
    Result<std::string> bytes = serialize_model_file(*sample_graph(), info);
    ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
    Result<LoadedModelFile> loaded = deserialize_model_file(*bytes, "mem");
    ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
    EXPECT_EQ(loaded->info.format_version, 5u);
    EXPECT_EQ(loaded->info.precision, precision);
    const std::string described = describe_model_file(loaded->info);
    EXPECT_NE(described.find("\nprecision: " + std::string(precision_name(precision)) + "\n"), std::string::npos)
        << described;
  }
  // A version 1 file (no precision field) is fp32.
  Result<LoadedModelFile> old = deserialize_model_file(one_weight_file({2, 2}, 16), "hand.gem");
  ASSERT_TRUE(old.is_ok()) << old.status().to_string();
  EXPECT_EQ(old->info.precision, Precision::kFp32);
}

void expect_error(const std::string& bytes, StatusCode code, const std::string& fragment) {
  Result<LoadedModelFile> loaded = deserialize_model_file(bytes, "bad.gem");
  ASSERT_FALSE(loaded.is_ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(loaded.status().code(), code) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find(fragment), std::string::npos) << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("bad.gem"), std::string::npos) << loaded.status().message();
}

std::string good_file() {
  Result<std::string> bytes = serialize_model_file(*sample_graph(), ModelFileInfo{});
  EXPECT_TRUE(bytes.is_ok());
  return *bytes;
}

TEST(ModelFileCorruption, UnknownPrecisionIsRefused) {
  std::string weights(16, '\0');
  std::string info = model_info_with_weight("w", 1, {2, 2}, 0, 16, 16);
  field_bytes(info, 13, "fp8");  // ModelInfo.precision
  expect_error(assemble({{3, info}, {1, kOneWeightGraph}, {2, weights}}, 5), StatusCode::kUnsupported,
               "was compiled with precision 'fp8', which this build does not know (fp32, bf16, mixed)");
}

TEST(ModelFileCorruption, EmptyAndTruncated) {
  expect_error("", StatusCode::kParseError, "truncated: 0 bytes is shorter than the 40-byte header");
  const std::string good = good_file();
  expect_error(good.substr(0, 39), StatusCode::kParseError, "shorter than the 40-byte header");
  for (size_t keep : {size_t{40}, size_t{41}, good.size() / 2, good.size() - 1}) {
    expect_error(good.substr(0, keep), StatusCode::kParseError,
                 "truncated: the header promises " + std::to_string(good.size() - 40) + " payload bytes but the file holds " +
                     std::to_string(keep - 40));
  }
}

TEST(ModelFileCorruption, TrailingBytes) {
  expect_error(good_file() + "xx", StatusCode::kParseError, "2 unexpected bytes after the payload");
}

TEST(ModelFileCorruption, EveryBitFlipInThePayloadIsCaught) {
  const std::string good = good_file();
  for (size_t byte = 40; byte < good.size(); byte += 7) {
    std::string bad = good;
    bad[byte] = static_cast<char>(bad[byte] ^ (1 << (byte % 8)));
    expect_error(bad, StatusCode::kParseError, "checksum mismatch");
  }
}

TEST(ModelFileCorruption, WrongMagic) {
  std::string bad = good_file();
  bad[0] = 'X';
  expect_error(bad, StatusCode::kParseError, "is not a GE model file (wrong magic)");
  expect_error(std::string("\x08\x01\x12\x04onnx-model-bytes-here", 24), StatusCode::kParseError, "wrong magic");
}

TEST(ModelFileCorruption, FutureVersionAndUnknownFlags) {
  std::string bad = good_file();
  bad[8] = static_cast<char>(kModelFileFormatVersion + 1);
  const std::string next = std::to_string(kModelFileFormatVersion + 1);
  expect_error(bad, StatusCode::kUnsupported,
               "has format version " + next + ", newer than this build reads (" + std::to_string(kModelFileFormatVersion) + ")");
  bad = good_file();
  bad[12] = 4;
  expect_error(bad, StatusCode::kUnsupported, "sets unknown flags 0x4");
}

TEST(ModelFileCorruption, PartitionOutOfRange) {
  // Offset far past the end, size past the end, offset inside the header.
  expect_error(assemble({{1, kOneWeightGraph, 1000000}}), StatusCode::kParseError,
               "partition 1 at offset 1000000 with size");
  expect_error(assemble({{1, kOneWeightGraph, -1, int64_t{1} << 62}}), StatusCode::kParseError,
               "lies outside the file's partition area");
  expect_error(assemble({{1, kOneWeightGraph, 0}}), StatusCode::kParseError, "partition 1 at offset 0");
  // A size near 2^63 (offset + size must not wrap).
  expect_error(assemble({{1, kOneWeightGraph, 136, INT64_MAX}}), StatusCode::kParseError, "lies outside");
}

TEST(ModelFileCorruption, TableProblems) {
  std::string bad = good_file();
  bad[32] = static_cast<char>(0xff);
  bad[33] = static_cast<char>(0xff);
  bad[34] = static_cast<char>(0xff);
  // The header is outside the checksum, so the table bound itself must catch this.
  expect_error(bad, StatusCode::kParseError, "partition table size 16777215 exceeds the payload");
  expect_error(assemble({{9, "x"}}), StatusCode::kParseError, "unknown partition 9");
  expect_error(assemble({{1, kOneWeightGraph}, {1, kOneWeightGraph}}), StatusCode::kParseError,
               "partition 1 appears twice");
  expect_error(assemble({{1, kOneWeightGraph}, {2, ""}}), StatusCode::kParseError,
               "the model info partition is missing");
}

TEST(ModelFileCorruption, AbsurdWeightSizeAllocatesNothing) {
  // 2.5e14 float32 elements = 10^15 bytes, in a 16-byte weights partition.
  expect_error(one_weight_file({250000000000000}, 1000000000000000), StatusCode::kParseError,
               "weight 'w' claims 1000000000000000 bytes for shape [250000000000000] but the weights partition "
               "holds 16 bytes");
  // Dims whose product overflows 64 bits.
  expect_error(one_weight_file({int64_t{1} << 40, int64_t{1} << 40}, 16), StatusCode::kParseError,
               "weight 'w' claims 16 bytes");
  expect_error(one_weight_file({-4}, 16), StatusCode::kParseError, "negative dimension -4");
  // Size consistent with the shape but the entry runs past the partition.
  expect_error(one_weight_file({2, 2}, 16, 8), StatusCode::kParseError,
               "weight 'w' at offset 8 with size 16 lies outside the weights partition (16 bytes)");
}

TEST(ModelFileCorruption, WeightDirectoryDisagreesWithGraph) {
  std::string weights(16, '\0');
  expect_error(assemble({{3, model_info_with_weight("v", 1, {4}, 0, 16, 16)}, {1, kOneWeightGraph}, {2, weights}}),
               StatusCode::kParseError, "weight 'v' does not match the graph's initializer 'w'");
  expect_error(assemble({{3, model_info_with_weight("w", 7, {2}, 0, 16, 16)}, {1, kOneWeightGraph}, {2, weights}}),
               StatusCode::kParseError, "weight 'w' has dtype 7 but its placeholder is float32");
  expect_error(assemble({{3, model_info_with_weight("w", 99, {4}, 0, 16, 16)}, {1, kOneWeightGraph}, {2, weights}}),
               StatusCode::kParseError, "has dtype 99");
  std::string no_entries;
  field_bytes(no_entries, 1, "cpu");
  expect_error(assemble({{3, no_entries}, {1, kOneWeightGraph}, {2, weights}}), StatusCode::kParseError,
               "the graph has 1 weight placeholders but the weight directory lists 0");
}

// A forged directory (checksum recomputed) whose weights share bytes: each would load
// with the other's values; the loader refuses ranges that overlap.
TEST(ModelFileCorruption, OverlappingWeightRangesAreRefused) {
  auto entry = [](const std::string& name, uint64_t offset) {
    std::string e, shape;
    field_bytes(e, 1, name);
    field_varint(e, 2, 1);  // float32
    varint(shape, 2);
    field_bytes(e, 3, shape);
    field_varint(e, 4, offset);
    field_varint(e, 5, 8);
    return e;
  };
  auto file = [&](uint64_t second_offset, uint64_t weights_bytes = 16) {
    std::string info;
    field_bytes(info, 1, "cpu");
    field_bytes(info, 6, entry("a", 0));
    field_bytes(info, 6, entry("b", second_offset));
    field_varint(info, 10, weights_bytes);
    const std::string graph =
        "graph main {\n  init %a : float32[0] = []\n  init %b : float32[0] = []\n  output %a\n  output %b\n}\n";
    return assemble({{3, info}, {1, graph}, {2, std::string(16, '\0')}});
  };
  expect_error(file(4), StatusCode::kParseError,
               "weight 'b' at offset 4 overlaps weight 'a' (offset 0, 8 bytes)");
  const std::string good = file(8);
  Result<LoadedModelFile> loaded = deserialize_model_file(good, "good.gem");
  EXPECT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  // Exactly the same range is weight merging (identical bytes stored once), counted once.
  expect_error(file(0), StatusCode::kParseError, "weights total 8 bytes but the model info says 16");
  Result<LoadedModelFile> merged = deserialize_model_file(file(0, 8), "merged.gem");
  ASSERT_TRUE(merged.is_ok()) << merged.status().to_string();
  EXPECT_EQ(merged->info.merged_weight_count, 1u);
}

TEST(ModelFileCorruption, GarbageGraphAndInfo) {
  std::string weights(16, '\0');
  expect_error(assemble({{3, model_info_with_weight("w", 1, {4}, 0, 16, 16)}, {1, "graph main { %% }"}, {2, weights}}),
               StatusCode::kParseError, "graph partition: line 1");
  expect_error(assemble({{3, std::string("\xff\xff\xff", 3)}, {1, kOneWeightGraph}, {2, weights}}),
               StatusCode::kParseError, "the model info partition does not parse");
}

TEST(ModelFileCorruption, BrokenPlanPartitions) {
  const std::string weights(16, '\0');
  const std::string info = model_info_with_weight("w", 1, {4}, 0, 16, 16);
  auto with_plans = [&](std::vector<RawPartition> plans) {
    plans.insert(plans.begin(), {{3, info}, {1, kOneWeightGraph}, {2, weights}});
    return assemble(plans, kModelFileFormatVersion);
  };
  expect_error(with_plans({{4, ""}, {5, ""}}), StatusCode::kParseError, "holds 2 of the 4 execution plan partitions");
  expect_error(with_plans({{4, "\xff\xff"}, {5, ""}, {6, ""}, {7, ""}}), StatusCode::kParseError,
               "the memory plan partition does not parse");
  // StreamPlan.stream_count (field 2) = 5000: refused before any per-stream allocation.
  expect_error(with_plans({{4, ""}, {5, "\x10\x88\x27"}, {6, ""}, {7, ""}}), StatusCode::kParseError,
               "the stream plan has 5000 streams");
  // TaskDefs with two (empty) stream lists for a plan of no streams (which has one).
  expect_error(with_plans({{4, ""}, {5, ""}, {6, std::string("\x0a\x00\x0a\x00", 4)}, {7, ""}}), StatusCode::kParseError,
               "task lists for 2 streams");
  // Empty plans decode (the runner then checks them against the graph).
  Result<LoadedModelFile> empty =
      deserialize_model_file(with_plans({{4, ""}, {5, ""}, {6, std::string("\x0a\x00", 2)}, {7, ""}}), "plans.gem");
  ASSERT_TRUE(empty.is_ok()) << empty.status().to_string();
  ASSERT_TRUE(empty->plans.has_value());
  EXPECT_TRUE(empty->plans->order.empty());
}

TEST(ModelFile, ReadMissingFile) {
  Result<LoadedModelFile> loaded = read_model_file("/nonexistent/m.gem");
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("/nonexistent/m.gem"), std::string::npos);
}

}  // namespace

namespace {

/// A file with an empty graph whose model info lists `entries` (offset, size) of a gears
/// partition holding `gears`.
std::string file_with_gears(const std::vector<std::pair<uint64_t, uint64_t>>& entries, const std::string& gears) {
  std::string info;
  field_bytes(info, 1, "cpu");
  for (const auto& [offset, size] : entries) {
    std::string entry;
    field_varint(entry, 1, offset);
    field_varint(entry, 2, size);
    field_bytes(info, 12, entry);
  }
  return assemble({{3, info}, {1, "graph main {\n}\n"}, {2, ""}, {8, gears}});
}

}  // namespace

TEST(ModelFileGears, EntriesMustLieInsideThePartitionOneAfterAnother) {
  const std::string blob(128, 'g');
  expect_error(file_with_gears({{0, 128}, {0, 128}}, blob), StatusCode::kParseError,
               "gear 1 at offset 0 overlaps the gear before it (which ends at 128)");
  expect_error(file_with_gears({{64, 128}}, blob), StatusCode::kParseError,
               "gear 0 at offset 64 with size 128 lies outside the gears partition (128 bytes)");
  expect_error(file_with_gears({}, blob), StatusCode::kParseError, "it has a gears partition but no gear entries");
  // In range, one after another: the gear itself is decoded (and this one is not a model file).
  expect_error(file_with_gears({{0, 64}, {64, 64}}, blob), StatusCode::kParseError, "gear 0");
}

}  // namespace ge
