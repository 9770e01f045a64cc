// End-to-end: runs the ge-run executable on samples/models/small_cnn.onnx and on bad input,
// checking exit status and messages. The expected output was computed by numpy in
// samples/models/make_small_cnn.py, not by GE.

#include <cpuid.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kSamples = GE_SAMPLE_MODELS_DIR;
const fs::path kModel = kSamples / "small_cnn.onnx";
const fs::path kData = kSamples / "small_cnn";

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Outcome run_tool(const std::string& tool, const std::vector<std::string>& args) {
  std::string command = quote(tool);
  for (const std::string& arg : args) command += " " + quote(arg);
  command += " 2>&1";
  Outcome outcome;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed: " << command;
    return outcome;
  }
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) outcome.output.append(buffer, n);
  const int status = ::pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return outcome;
}

Outcome ge_run(const std::vector<std::string>& args) { return run_tool(GE_RUN_PATH, args); }

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "expected to find: " << (needle)

/// A .npy version 1.0 file, written by hand from the format spec.
void write_npy(const fs::path& path, const std::string& descr, const std::string& shape, size_t payload_bytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header + std::string(payload_bytes, '\0');
  std::ofstream(path, std::ios::binary) << bytes;
}

class GeRunE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Only the registry beside the binary: an outer GE_PLUGINS must not change results.
    ::unsetenv("GE_PLUGINS");
  }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    tmp_ = fs::temp_directory_path() / ("ge_run_e2e_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }

  fs::path tmp_;
};

// ---- the sample model against numpy's output ----

TEST_F(GeRunE2ETest, SampleMatchesNumpyAtDefaultOptLevel) {
  Outcome r = ge_run({kModel, "--input", (kData / "input_0.pb").string(), "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "output 0 'output': float32[1,10]");
  EXPECT_CONTAINS(r.output, "vs " + (kData / "output_0.pb").string() + ": OK, max abs error");
  EXPECT_CONTAINS(r.output, "(rtol 1e-05, atol 1e-05)");
}

TEST_F(GeRunE2ETest, SampleMatchesNumpyAtO0) {
  Outcome r = ge_run({kModel, "-O0", "--input", "input=" + (kData / "input_0.pb").string(), "--expected-dir",
                      kData.string(), "--rtol", "1e-5", "--atol", "1e-5"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
}

TEST_F(GeRunE2ETest, SampleMatchesNumpyAtO3WithVerifyEach) {
  Outcome r = ge_run(
      {kModel, "-O3", "--verify-each", "--input", (kData / "input_0.pb").string(), "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
}

TEST_F(GeRunE2ETest, CheckPassesRunsEveryChangingPassOnTheUsersInput) {
  Outcome r = ge_run({kModel, "-O3", "--check-passes", "-v", "--input", (kData / "input_0.pb").string(),
                      "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "(changed), checked on cpu: max |difference| ");
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
  Outcome bad = ge_run({kModel, "--check-passes", "--input", "nope=random"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_CONTAINS(bad.output, "unknown input 'nope'");
}

TEST_F(GeRunE2ETest, MemoryAssignerAndOrderReachThePlan) {
  Outcome r = ge_run({kModel, "--memory-assigner", "naive", "--memory-order", "priority", "-v", "--input",
                      (kData / "input_0.pb").string(), "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "memory plan: assigner 'naive'");
  EXPECT_CONTAINS(r.output, "assigners: naive=");
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
  Outcome bad = ge_run({kModel, "--memory-assigner", "best_fit", "--input", "random"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_CONTAINS(bad.output, "unknown memory assigner 'best_fit'; loaded: ");
}

TEST_F(GeRunE2ETest, NpyInputGivesTheSameResult) {
  Outcome r =
      ge_run({kModel, "--input", "input=" + (kData / "input_0.npy").string(), "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
}

TEST_F(GeRunE2ETest, OutputDirWritesTensorProtos) {
  const fs::path out = tmp_ / "nested" / "out";
  Outcome r = ge_run({kModel, "--input", (kData / "input_0.pb").string(), "--output-dir", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "wrote 1 output(s) to " + out.string());
  ASSERT_TRUE(fs::exists(out / "output_0.pb"));
  EXPECT_FALSE(fs::exists(out / "output_1.pb"));

  // Decode both files with libonnx's protobuf classes and compare numbers directly.
  auto load = [](const fs::path& path) {
    onnx::TensorProto proto;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(proto.ParseFromIstream(&in)) << path;
    return proto;
  };
  auto floats = [](const onnx::TensorProto& proto) {
    std::vector<float> values(proto.float_data().begin(), proto.float_data().end());
    if (proto.has_raw_data()) {
      values.resize(proto.raw_data().size() / sizeof(float));
      std::memcpy(values.data(), proto.raw_data().data(), values.size() * sizeof(float));
    }
    return values;
  };
  const onnx::TensorProto got = load(out / "output_0.pb");
  const onnx::TensorProto want = load(kData / "output_0.pb");
  EXPECT_EQ(got.name(), "output");
  EXPECT_EQ(got.data_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(got.dims_size(), 2);
  EXPECT_EQ(got.dims(0), 1);
  EXPECT_EQ(got.dims(1), 10);
  const std::vector<float> got_values = floats(got), want_values = floats(want);
  ASSERT_EQ(got_values.size(), 10u);
  ASSERT_EQ(want_values.size(), 10u);
  for (size_t i = 0; i < 10; ++i) EXPECT_NEAR(got_values[i], want_values[i], 1e-5 + 1e-5 * std::abs(want_values[i]));
}

TEST_F(GeRunE2ETest, MismatchWithExpectedExitsOne) {
  // Expected all zeros: the largest error is the largest softmax output numpy computed,
  // 0.70167089 (element 3).
  onnx::TensorProto zeros;
  zeros.set_data_type(onnx::TensorProto::FLOAT);
  zeros.add_dims(1);
  zeros.add_dims(10);
  zeros.set_raw_data(std::string(40, '\0'));
  std::ofstream(tmp_ / "output_0.pb", std::ios::binary) << zeros.SerializeAsString();
  Outcome r = ge_run({kModel, "--input", (kData / "input_0.pb").string(), "--expected-dir", tmp_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, ": MISMATCH, max abs error 0.70167");
  EXPECT_CONTAINS(r.output, "10 of 10 elements differ; first at [0,0]");
  EXPECT_CONTAINS(r.output, "outputs do not match the expected values in '" + tmp_.string() + "'");
}

TEST_F(GeRunE2ETest, ExpectedShapeMismatchExitsOne) {
  onnx::TensorProto flat;
  flat.set_data_type(onnx::TensorProto::FLOAT);
  flat.add_dims(10);
  flat.set_raw_data(std::string(40, '\0'));
  std::ofstream(tmp_ / "output_0.pb", std::ios::binary) << flat.SerializeAsString();
  Outcome r = ge_run({kModel, "--input", (kData / "input_0.pb").string(), "--expected-dir", tmp_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "MISMATCH");
  EXPECT_CONTAINS(r.output, "shape [1,10] but expected [10]");
}

TEST_F(GeRunE2ETest, MissingExpectedFileExitsOne) {
  Outcome r = ge_run({kModel, "--input", (kData / "input_0.pb").string(), "--expected-dir", tmp_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "expected output file '" + (tmp_ / "output_0.pb").string() + "' does not exist");
}

TEST_F(GeRunE2ETest, RandomInput) {
  Outcome r = ge_run({kModel, "--input", "random"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "output 0 'output': float32[1,10]");
  // Same seed, same numbers.
  Outcome again = ge_run({kModel, "--input", "input=random"});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(r.output, again.output);
}

TEST_F(GeRunE2ETest, RepeatPrintsLatency) {
  Outcome r = ge_run({kModel, "--input", "random", "--repeat", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "latency over 3 runs: median ");
  EXPECT_CONTAINS(r.output, " ms, min ");
}

TEST_F(GeRunE2ETest, VerbosePrintsPassTimings) {
  Outcome r = ge_run({kModel, "--input", "random", "-v"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "compiled '" + kModel.string() + "' for backend cpu in ");
  EXPECT_CONTAINS(r.output, "pass timings:");
}

TEST_F(GeRunE2ETest, ShrinkDropsTheHostWeightsOnNpuSimAndStillMatches) {
  for (const std::string backend : {"npu_sim", "cpu"}) {
    Outcome r = ge_run({kModel, "--backend", backend, "--shrink", "-v", "--input", (kData / "input_0.pb").string(),
                        "--expected-dir", kData.string(), "--atol", "1e-4"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_CONTAINS(r.output, "vs " + (kData / "output_0.pb").string() + ": OK");
    if (backend == "npu_sim") {
      EXPECT_CONTAINS(r.output, " copied to the device, 0 held on the host (--shrink); resident memory after load ");
    } else {
      // cpu reads the weights in place: they stay, nothing is copied.
      EXPECT_CONTAINS(r.output, " bytes, 0 copied to the device, ");
      EXPECT_EQ(r.output.find(", 0 held on the host"), std::string::npos) << r.output;
    }
  }
}

TEST_F(GeRunE2ETest, VerbosePrintsDeviceTimePerOpType) {
  Outcome r = ge_run({kModel, "-O0", "--input", "random", "--repeat", "2", "-v"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "device time per op type over 2 runs (cpu, wall time):\n");
  EXPECT_CONTAINS(r.output, "  op type ");
  EXPECT_CONTAINS(r.output, "total ms     ms/run   share   tasks  kernel\n");
  EXPECT_CONTAINS(r.output, "\n  Conv ");
  EXPECT_CONTAINS(r.output, " cpu.Conv");
  EXPECT_CONTAINS(r.output, "\n  total ");
  EXPECT_CONTAINS(r.output, "100.0%");
  // Without -v the device does not trace and nothing is printed.
  Outcome quiet = ge_run({kModel, "-O0", "--input", "random", "--repeat", "2"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("device time per op type"), std::string::npos) << quiet.output;
}

std::string read_dumped_ir(const fs::path& dump) {
  std::string text;
  for (const auto& entry : fs::directory_iterator(dump)) {
    if (entry.path().extension() != ".ir") continue;
    std::ifstream in(entry.path());
    text += std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return text;
}

TEST_F(GeRunE2ETest, DumpGraphWritesFilesElidingLargeConstants) {
  const fs::path dump = tmp_ / "dump";
  Outcome r = ge_run({kModel, "--input", "random", "--dump-graph", dump.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::is_directory(dump));
  EXPECT_FALSE(fs::is_empty(dump));
  const std::string elided = read_dumped_ir(dump);
  EXPECT_CONTAINS(elided, " elements, xxh3 0x");

  const fs::path full_dump = tmp_ / "full";
  Outcome full = ge_run({kModel, "--input", "random", "--dump-graph", full_dump.string(), "--dump-graph-constants"});
  EXPECT_EQ(full.exit_code, 0) << full.output;
  const std::string all = read_dumped_ir(full_dump);
  EXPECT_EQ(all.find("elided("), std::string::npos);
  EXPECT_GT(all.size(), elided.size());
}

// ---- plugins ----

TEST_F(GeRunE2ETest, ListPluginsShowsEveryKind) {
  Outcome r = ge_run({"--list-plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "ge_plugins.toml");
  for (const char* kind : {"parser", "op_library", "pass", "backend"}) EXPECT_CONTAINS(r.output, kind);
  // The passes in pipeline order, each with its phase.
  const size_t pipeline = r.output.find("pass pipeline (by phase;");
  ASSERT_NE(pipeline, std::string::npos) << r.output;
  const size_t noop = r.output.find("canonicalize  noop_elimination", pipeline);
  const size_t cse = r.output.find("fold          cse", pipeline);
  const size_t dce = r.output.find("cleanup       dce", pipeline);
  const size_t layout = r.output.find("layout        layout_assignment", pipeline);
  EXPECT_TRUE(noop != std::string::npos && noop < cse && cse < dce && dce < layout) << r.output;
}

TEST_F(GeRunE2ETest, ListPluginsFailsOnACycleOfPassConstraints) {
  const fs::path registry = tmp_ / "cycle.toml";
  const fs::path lib = fs::path(GE_RUN_PATH).parent_path().parent_path() / "lib";
  std::ofstream(registry) << "[[plugin]]\nname = \"constant_folding\"\nkind = \"pass\"\nlibrary = \""
                          << (lib / "libge_pass_constant_folding.so").string()
                          << "\"\n[plugin.options]\nafter = [\"cse\"]\n";
  Outcome listed = ge_run({"--plugins", registry.string(), "--list-plugins"});
  EXPECT_EQ(listed.exit_code, 1) << listed.output;
  EXPECT_CONTAINS(listed.output, "form a cycle: 'constant_folding' runs before 'cse' runs before 'constant_folding'");
}

TEST_F(GeRunE2ETest, BrokenRegistryEntryExitsOne) {
  const fs::path registry = tmp_ / "broken.toml";
  std::ofstream(registry) << "[[plugin]]\nname = \"ghost\"\nkind = \"pass\"\nlibrary = \"libge_no_such_plugin.so\"\n";
  Outcome r = ge_run({"--plugins", registry.string(), kModel, "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "plugin failure");
  EXPECT_CONTAINS(r.output, "libge_no_such_plugin.so");
  Outcome listed = ge_run({"--plugins", registry.string(), "--list-plugins"});
  EXPECT_EQ(listed.exit_code, 1) << listed.output;
  EXPECT_CONTAINS(listed.output, "libge_no_such_plugin.so");
}

TEST_F(GeRunE2ETest, MissingRegistryFileExitsOne) {
  Outcome r = ge_run({"--plugins", (tmp_ / "absent.toml").string(), kModel, "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "absent.toml");
}

// ---- user errors: exit 1 with a precise message ----

TEST_F(GeRunE2ETest, MissingModelFile) {
  const fs::path missing = tmp_ / "no_such_model.onnx";
  Outcome r = ge_run({missing, "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "model file '" + missing.string() + "' does not exist");
}

TEST_F(GeRunE2ETest, NonOnnxFileWithOnnxExtension) {
  const fs::path garbage = tmp_ / "garbage.onnx";
  std::ofstream(garbage) << "this is plain text, not a protobuf-encoded ONNX model\n";
  Outcome r = ge_run({garbage, "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "garbage.onnx");
  EXPECT_CONTAINS(r.output, "ge-run: error (");
}

TEST_F(GeRunE2ETest, FileWithNoParser) {
  const fs::path text = tmp_ / "model.txt";
  std::ofstream(text) << "not a model\n";
  Outcome r = ge_run({text, "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, ".txt");
}

TEST_F(GeRunE2ETest, UnknownInputName) {
  Outcome r = ge_run({kModel, "--input", "nope=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output,
                  "unknown input 'nope' in --input nope=random; the model's inputs are: 'input' "
                  "float32[1,3,16,16]");
}

TEST_F(GeRunE2ETest, InitializerIsNotAnInput) {
  Outcome r = ge_run({kModel, "--input", "input=random", "--input", "conv1_w=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "unknown input 'conv1_w'");
}

TEST_F(GeRunE2ETest, WrongInputShape) {
  const fs::path small = tmp_ / "small.npy";
  write_npy(small, "<f4", "(1, 3, 8, 8)", 1 * 3 * 8 * 8 * 4);
  Outcome r = ge_run({kModel, "--input", "input=" + small.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "input 'input' from '" + small.string() +
                                "' has shape [1,3,8,8] but the model expects float32[1,3,16,16]");
}

TEST_F(GeRunE2ETest, WrongInputDtype) {
  const fs::path doubles = tmp_ / "doubles.npy";
  write_npy(doubles, "<f8", "(1, 3, 16, 16)", 3 * 16 * 16 * 8);
  Outcome r = ge_run({kModel, "--input", doubles.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "has dtype float64 but the model expects float32[1,3,16,16]");
}

TEST_F(GeRunE2ETest, CorruptNpyInput) {
  const fs::path bad = tmp_ / "bad.npy";
  std::ofstream(bad) << "not numpy";
  Outcome r = ge_run({kModel, "--input", bad.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "not a .npy file");
}

TEST_F(GeRunE2ETest, MissingInputFile) {
  Outcome r = ge_run({kModel, "--input", (tmp_ / "absent.pb").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "absent.pb' does not exist");
}

TEST_F(GeRunE2ETest, PluginOptionSetsABackendSettingOverTheRegistry) {
  // The registry's default kernel providers put oneDNN in front; the reference kernels only.
  Outcome fast = ge_run({kModel, "-O0", "--input", "random", "-v"});
  EXPECT_EQ(fast.exit_code, 0) << fast.output;
  EXPECT_CONTAINS(fast.output, "cpu.Conv.dnnl");
  Outcome reference = ge_run({kModel, "-O0", "-v", "--plugin-option",
                              "cpu.kernel_providers=[reference]", "--expected-dir", kData.string(), "--input",
                              (kData / "input_0.pb").string()});
  EXPECT_EQ(reference.exit_code, 0) << reference.output;
  EXPECT_EQ(reference.output.find(".dnnl"), std::string::npos) << reference.output;
  EXPECT_CONTAINS(reference.output, "cpu.Conv.im2col");
  EXPECT_CONTAINS(reference.output, ": OK, max abs error");
}

TEST_F(GeRunE2ETest, ABadPluginOptionExitsOneNamingIt) {
  Outcome typed = ge_run({kModel, "--input", "random", "--plugin-option", "cpu.winograd=maybe"});
  EXPECT_EQ(typed.exit_code, 1) << typed.output;
  EXPECT_CONTAINS(typed.output, "option winograd must be a bool, got \"maybe\"");
  Outcome misspelt = ge_run({kModel, "--input", "random", "--plugin-option", "cpu.winogrd=false"});
  EXPECT_EQ(misspelt.exit_code, 1) << misspelt.output;
  EXPECT_CONTAINS(misspelt.output, "did you mean 'winograd'?");
  Outcome unknown = ge_run({kModel, "--input", "random", "--plugin-option", "gpu.threads=2"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_CONTAINS(unknown.output, "setting gpu.threads: no registry defines a plugin named 'gpu'");
  Outcome malformed = ge_run({kModel, "--input", "random", "--plugin-option", "cpu"});
  EXPECT_EQ(malformed.exit_code, 1) << malformed.output;
  EXPECT_CONTAINS(malformed.output, "--plugin-option expects PLUGIN.KEY=VALUE");
}

TEST_F(GeRunE2ETest, UnknownBackend) {
  Outcome r = ge_run({kModel, "--input", "random", "--backend", "no_such_backend"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "no_such_backend");
}

TEST_F(GeRunE2ETest, UnknownPass) {
  Outcome r = ge_run({kModel, "--input", "random", "--passes", "no_such_pass"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "no_such_pass");
}

TEST_F(GeRunE2ETest, MissingInput) {
  Outcome r = ge_run({kModel});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "missing input 'input' float32[1,3,16,16]: bind it with --input input=FILE");
}

TEST_F(GeRunE2ETest, InputBoundTwice) {
  Outcome r = ge_run({kModel, "--input", "random", "--input", "input=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "input 'input' is bound twice: --input random and --input input=random");
}

TEST_F(GeRunE2ETest, TooManyPositionalInputs) {
  Outcome r = ge_run({kModel, "--input", "random", "--input", "random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "more positional inputs than the model has (1)");
}

TEST_F(GeRunE2ETest, BadCommandLine) {
  Outcome unknown = ge_run({kModel, "--frobnicate"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_CONTAINS(unknown.output, "unknown option '--frobnicate'");
  Outcome no_model = ge_run({});
  EXPECT_EQ(no_model.exit_code, 1) << no_model.output;
  EXPECT_CONTAINS(no_model.output, "missing MODEL argument");
  Outcome level = ge_run({kModel, "-O9"});
  EXPECT_EQ(level.exit_code, 1) << level.output;
  EXPECT_CONTAINS(level.output, "-O expects an integer in [0, 3], got '9'");
}

TEST_F(GeRunE2ETest, Help) {
  Outcome r = ge_run({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "usage: ge-run");
}

}  // namespace

// ---- absurd sizes, bounded memory, output paths (issue 17, findings 1-3) ----

namespace {

/// A one-node opset-17 model: `op` from the named inputs (int64 shape input when
/// `shape_rank` > 0 goes last) to float output "y" of unknown shape.
void write_one_node_model(const fs::path& path, const std::string& op,
                          const std::vector<std::pair<std::string, std::vector<int64_t>>>& float_inputs,
                          int64_t shape_rank) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name("n");
  auto add_input = [&](const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(name);
    input->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    onnx::TensorShapeProto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
    node->add_input(name);
  };
  for (const auto& [name, dims] : float_inputs) add_input(name, onnx::TensorProto::FLOAT, dims);
  if (shape_rank > 0) add_input("shape", onnx::TensorProto::INT64, {shape_rank});
  node->add_output("y");
  onnx::ValueInfoProto* output = graph->add_output();
  output->set_name("y");
  output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
}

/// An int64 .npy vector.
void write_int64_npy(const fs::path& path, const std::vector<int64_t>& values) {
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xFF);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t));
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_F(GeRunE2ETest, ARunTimeShapeThatOverflowsExitsOneNamingNodeAndDims) {
  // Unchecked, the count wrapped to 0: exit 0 with an empty tensor of those dims.
  write_one_node_model(tmp_ / "cos.onnx", "ConstantOfShape", {}, 3);
  write_int64_npy(tmp_ / "shape.npy", {int64_t{1} << 22, int64_t{1} << 22, int64_t{1} << 22});
  Outcome r = ge_run({(tmp_ / "cos.onnx").string(), "--input", (tmp_ / "shape.npy").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "ConstantOfShape 'n'");
  EXPECT_CONTAINS(r.output, "[4194304,4194304,4194304] has more than 2^63 elements");
  // A negative dim says so (it read "got float32[?]").
  write_int64_npy(tmp_ / "negative.npy", {2, -3, 1});
  r = ge_run({(tmp_ / "cos.onnx").string(), "--input", (tmp_ / "negative.npy").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "dim 1 is negative (-3)");
}

// At -O0 no pass runs, so nothing made the dump folder before partition.txt was written
// (it exited 1 after a successful run).
TEST_F(GeRunE2ETest, DumpGraphAtO0WritesThePartitionOfAPerOpModel) {
  write_one_node_model(tmp_ / "expand.onnx", "Expand", {{"x", {1}}}, 2);
  write_int64_npy(tmp_ / "dims.npy", {2, 3});
  const fs::path dump = tmp_ / "dump_o0";
  Outcome r = ge_run({(tmp_ / "expand.onnx").string(), "-O0", "--input", "x=random", "--input",
                      "shape=" + (tmp_ / "dims.npy").string(), "--dump-graph", dump.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream partition(dump / "partition.txt");
  ASSERT_TRUE(partition.good()) << r.output;
  const std::string text((std::istreambuf_iterator<char>(partition)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(text, "per op: Expand 'n'");
}

TEST_F(GeRunE2ETest, AnAllocationPastTheMemoryLimitExitsOneNamingTheNode) {
  write_one_node_model(tmp_ / "expand.onnx", "Expand", {{"x", {1}}}, 2);
  write_int64_npy(tmp_ / "shape.npy", {1024, 16384});  // 64 MiB of float32
  const std::vector<std::string> run = {(tmp_ / "expand.onnx").string(), "--input", "random", "--input",
                                        (tmp_ / "shape.npy").string()};
  std::vector<std::string> limited = run;
  limited.insert(limited.end(), {"--memory-limit", "1M"});
  Outcome r = ge_run(limited);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "Expand 'n' needs 64 MiB; limit 1.0 MiB");
  r = ge_run(run);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(GeRunE2ETest, WeightsPastTheMemoryLimitAreRefusedNamingTheWeight) {
  // Issue 36 item 6: the cpu backend did not count weights (128 MiB ran under a 100 MiB
  // limit); npu_sim did. A MatMul with 8 MiB of float32 weights, a limit of 4 MiB.
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("MatMul");
  node->set_name("matmul");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  onnx::TensorProto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2048);
  w->add_dims(1024);
  w->set_raw_data(std::string(size_t{8} << 20, '\0'));
  for (const auto& [name, columns] : {std::pair{"x", 2048}, std::pair{"y", 1024}}) {  // [1,2048] x w -> [1,1024]
    onnx::ValueInfoProto* info = std::string(name) == "x" ? graph->add_input() : graph->add_output();
    info->set_name(name);
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    type->mutable_shape()->add_dim()->set_dim_value(1);
    type->mutable_shape()->add_dim()->set_dim_value(columns);
  }
  std::ofstream(tmp_ / "weights.onnx", std::ios::binary) << model.SerializeAsString();
  for (const char* backend : {"cpu", "npu_sim"}) {
    Outcome r = ge_run({(tmp_ / "weights.onnx").string(), "--input", "random", "--memory-limit", "4M", "--backend",
                        backend});
    EXPECT_EQ(r.exit_code, 1) << backend << ": " << r.output;
    EXPECT_CONTAINS(r.output, "weight 'w' float32[2048,1024] needs 8.0 MiB; limit 4.0 MiB");
    r = ge_run({(tmp_ / "weights.onnx").string(), "--input", "random", "--memory-limit", "64M", "--backend", backend});
    EXPECT_EQ(r.exit_code, 0) << backend << ": " << r.output;
  }
  // oneDNN's prepacked copy of the weights counts too: 8 MiB of weights fit in 12 MiB,
  // their copy in oneDNN's layout does not.
  Outcome r = ge_run({(tmp_ / "weights.onnx").string(), "--input", "random", "--memory-limit", "12M"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "the prepacked weights of MatMul 'matmul' needs ");  // 8 MiB or more: blocks are padded
  EXPECT_CONTAINS(r.output, "; limit 12 MiB, 8.0 MiB already in use");
}

TEST_F(GeRunE2ETest, AGraphInputBeyondTheMemoryLimitIsRefusedBeforeAllocating) {
  // It ended in "internal error: unexpected exception: std::bad_alloc" (exit 2).
  write_one_node_model(tmp_ / "relu.onnx", "Relu", {{"x", {int64_t{1} << 40}}}, 0);
  Outcome r = ge_run({(tmp_ / "relu.onnx").string(), "--input", "random", "--memory-limit", "1G"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "graph input 'x' float32[1099511627776] needs 4.0 TiB; limit 1.0 GiB");
}

TEST_F(GeRunE2ETest, OutputPathsAreCheckedBeforeRunning) {
  const fs::path file = tmp_ / "file";
  std::ofstream(file) << "x";
  Outcome r = ge_run({kModel, "--input", "random", "--expected-dir", file.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "expected-output directory '" + file.string() + "' is not a directory");
  r = ge_run({kModel, "--input", "random", "--repeat", "3", "--output-dir", (file / "out").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--output-dir '" + (file / "out").string() + "' cannot be created");
  EXPECT_EQ(r.output.find("latency over"), std::string::npos) << "ran before checking: " << r.output;
}

TEST_F(GeRunE2ETest, DurationRunsForAGivenTimeAndPrintsQuantiles) {
  Outcome r = ge_run({kModel, "--input", "random", "--duration", "0.3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "latency over ");
  EXPECT_CONTAINS(r.output, " ms, p90 ");
  EXPECT_CONTAINS(r.output, " ms, p99 ");
  // --repeat stops first when it is reached first.
  r = ge_run({kModel, "--input", "random", "--duration", "60", "--repeat", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "latency over 3 runs: median ");
}

// A kernel that refuses its data names the node and the offending value (it read
// "failed with code 200: unknown kernel error"), on the task sink and on npu_sim.
TEST_F(GeRunE2ETest, AnIndexOutOfRangeNamesTheNodeAndTheIndex) {
  write_one_node_model(tmp_ / "gather.onnx", "Gather", {{"x", {3, 2}}}, 2);
  write_int64_npy(tmp_ / "indices.npy", {0, 7});
  for (const char* backend : {"cpu", "npu_sim"}) {
    Outcome r = ge_run({(tmp_ / "gather.onnx").string(), "--input", "random", "--input",
                        (tmp_ / "indices.npy").string(), "--backend", backend});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_CONTAINS(r.output, "of Gather 'n'");
    EXPECT_CONTAINS(r.output, "an index input holds a value outside the axis or tensor it indexes: index 7 is "
                              "outside [-3, 3)");
    EXPECT_EQ(r.output.find("unknown kernel error"), std::string::npos) << r.output;
  }
}

// A .gem is compiled: it runs on the backend it was compiled for, and options that only
// shape compilation are refused rather than silently ignored.
TEST_F(GeRunE2ETest, ACompiledModelTakesItsBackendAndRefusesCompileOptions) {
  const std::string gem = (tmp_ / "small_cnn_npu.gem").string();
  Outcome compiled = run_tool(GE_COMPILE_PATH, {"--model", kModel.string(), "--output", gem, "--backend", "npu_sim"});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  const std::vector<std::string> inputs = {"--input", "input=" + (kData / "input_0.npy").string()};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), gem);
    args.insert(args.end(), inputs.begin(), inputs.end());
    return args;
  };
  Outcome r = ge_run(with({"--expected-dir", kData.string(), "--atol", "1e-4"}));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = ge_run(with({"--backend", "cpu"}));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "was compiled for backend 'npu_sim', not 'cpu'");
  for (const std::vector<std::string>& option : std::vector<std::vector<std::string>>{
           {"-O3"}, {"--passes", "dce"}, {"--dump-graph", (tmp_ / "dump").string()}, {"--check-passes"}}) {
    r = ge_run(with(option));
    EXPECT_EQ(r.exit_code, 1) << option[0] << ": " << r.output;
    EXPECT_CONTAINS(r.output, (option[0] == "-O3" ? std::string("-O") : option[0]) +
                                  " applies when compiling a model, but '" + gem + "' is compiled already");
  }
  EXPECT_FALSE(fs::exists(tmp_ / "dump"));
}

// ---- issue 36: outputs written atomically, registry options checked ----

namespace {

std::string contents_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The hidden temporaries an atomic write leaves when it is killed (or fails to remove).
std::vector<std::string> temporaries_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) names.push_back(name);
  }
  return names;
}

/// `tool args...` under a file size limit of one 512-byte block, SIGXFSZ ignored: a longer
/// write fails with EFBIG part way, as one on a full disk fails with ENOSPC.
Outcome run_with_tiny_file_size_limit(const std::string& tool, const std::vector<std::string>& args) {
  std::vector<std::string> wrapped = {"-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", tool};
  wrapped.insert(wrapped.end(), args.begin(), args.end());
  return run_tool("/bin/sh", wrapped);
}

}  // namespace

// Item 10: a failed write (a full disk) truncated the previous file under its own name.
TEST_F(GeRunE2ETest, AProfileThatCannotBeWrittenKeepsThePreviousOneAndSaysWhy) {
  const fs::path trace = tmp_ / "trace.json";
  std::ofstream(trace) << "the previous trace";
  Outcome r = run_with_tiny_file_size_limit(GE_RUN_PATH, {kModel, "--input", "random", "--profile", trace.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "cannot write '" + trace.string() + "': File too large (the previous file is kept)")
      << "\n"
      << r.output;
  EXPECT_EQ(contents_of(trace), "the previous trace");
  EXPECT_TRUE(temporaries_in(tmp_).empty());
}

TEST_F(GeRunE2ETest, AGemThatCannotBeWrittenKeepsThePreviousOneAndSaysWhy) {
  const fs::path gem = tmp_ / "m.gem";
  std::ofstream(gem) << "the previous model";
  Outcome r = run_with_tiny_file_size_limit(GE_COMPILE_PATH, {"--model", kModel.string(), "--output", gem.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "cannot write '" + gem.string() + "': File too large (the previous file is kept)")
      << "\n"
      << r.output;
  EXPECT_EQ(contents_of(gem), "the previous model");
  const fs::path onnx = tmp_ / "m.onnx";
  r = run_with_tiny_file_size_limit(GE_COMPILE_PATH, {"--model", kModel.string(), "--export-onnx", onnx.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--export-onnx: cannot write '" + onnx.string() + "': File too large") << "\n" << r.output;
  EXPECT_FALSE(fs::exists(onnx));
  EXPECT_TRUE(temporaries_in(tmp_).empty());
}

TEST_F(GeRunE2ETest, CompilingOverTheSourceModelIsRefused) {
  const fs::path model = tmp_ / "self.onnx";
  fs::copy_file(kModel, model);
  const std::string before = contents_of(model);
  fs::create_hard_link(model, tmp_ / "alias.onnx");
  for (const std::string& output :
       {model.string(), (tmp_ / "." / "self.onnx").string(), (tmp_ / "alias.onnx").string()}) {
    for (const std::string flag : {"--output", "--export-onnx"}) {
      Outcome r = run_tool(GE_COMPILE_PATH, {"--model", model.string(), flag, output});
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_CONTAINS(r.output, flag + " '" + output + "' is the model '" + model.string() +
                                    "' itself; writing it would destroy the source model: give another file");
    }
  }
  EXPECT_EQ(contents_of(model), before);
  Outcome r = run_tool(GE_COMPILE_PATH, {"--model", model.string(), "--output", (tmp_ / "m.x").string(),
                                         "--export-onnx", (tmp_ / "m.x").string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--output and --export-onnx name the same file") << "\n" << r.output;
}

// Item 17: an unknown key in a built-in pass's [plugin.options] was ignored.
TEST_F(GeRunE2ETest, AMisspeltPassOptionIsAnErrorNamingTheKeyAndThePass) {
  const fs::path lib = fs::path(GE_RUN_PATH).parent_path().parent_path() / "lib";
  struct Case {
    std::string plugin, key, message;
  };
  for (const Case& c :
       std::vector<Case>{{"dce", "mni_opt_level",
                          "pass 'dce': unknown option 'mni_opt_level' in [plugin.options]; did you mean "
                          "'min_opt_level'? (known options: min_opt_level, phase, after, before)"},
                         {"constant_folding", "max_folded_byte",
                          "pass 'constant_folding': unknown option 'max_folded_byte' in "
                          "[plugin.options]; did you mean 'max_folded_bytes'?"},
                         {"fusion", "fuse_gelu.phas",
                          "plugin 'fusion': unknown option 'fuse_gelu.phas' in [plugin.options]; did "
                          "you mean 'fuse_gelu.phase'?"}}) {
    const fs::path registry = tmp_ / (c.plugin + ".toml");
    std::ofstream(registry) << "[[plugin]]\nname = \"" << c.plugin << "\"\nkind = \"pass\"\nlibrary = \""
                            << (lib / ("libge_pass_" + c.plugin + ".so")).string() << "\"\n[plugin.options]\n\""
                            << c.key << "\" = 3\n";
    Outcome r = ge_run({"--plugins", registry.string(), kModel, "--input", "random"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_CONTAINS(r.output, c.message) << "\n" << r.output;
  }
}

// Item 17: `--input-shape ''` was blamed on control flow ("does not compile to static
// plans"); so was a gear that leaves an input's dims open.
TEST_F(GeRunE2ETest, GeCompileNamesWhatAnInputShapeLeavesOpen) {
  onnx::ModelProto model;  // y = x + z, x: float32[N,3], z: float32[M,3]
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Add");
  node->add_input("x");
  node->add_input("z");
  node->add_output("y");
  for (const char* name : {"x", "z"}) {
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(name);
    input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto* shape = input->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->add_dim()->set_dim_param(std::string(name) == "x" ? "N" : "M");
    shape->add_dim()->set_dim_value(3);
  }
  graph->add_output()->set_name("y");
  graph->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const fs::path path = tmp_ / "add.onnx";
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  const std::string gem = (tmp_ / "add.gem").string();

  for (const std::string empty : {"", " ", ";"}) {
    Outcome r = run_tool(GE_COMPILE_PATH, {"--model", path.string(), "--output", gem, "--input-shape", empty,
                                           "--input-shape", "x=2,3;z=2,3"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_CONTAINS(
        r.output, "--input-shape expects NAME=D0,D1,... (several separated by ';'), got an empty value '" + empty + "'")
        << "\n"
        << r.output;
  }
  Outcome r = run_tool(GE_COMPILE_PATH, {"--model", path.string(), "--output", gem, "--input-shape", "x=2,3",
                                         "--input-shape", "x=4,3;z=4,3"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output,
                  "--input-shape 'x=2,3': input 'z' float32[M,3] still has dynamic dims; each "
                  "--input-shape of a gear gives the dims of every input with dynamic dims")
      << "\n"
      << r.output;
  r = run_tool(GE_COMPILE_PATH, {"--model", path.string(), "--output", gem, "--input-shape", "x=2,3;z=2,3",
                                 "--input-shape", "x=4,3;z=4,3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

namespace {

/// `op` on float input x of `x_dims` (a negative dim is symbolic "N") to y of unknown
/// shape, with `ints` attributes and float initializers (inputs after x, in order).
void write_attribute_model(const fs::path& path, const std::string& op, const std::vector<int64_t>& x_dims,
                           const std::vector<std::pair<std::string, std::vector<int64_t>>>& ints,
                           const std::vector<std::pair<std::string, std::vector<int64_t>>>& initializers) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name("n");
  node->add_input("x");
  node->add_output("y");
  onnx::ValueInfoProto* x = graph->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : x_dims) {
    onnx::TensorShapeProto::Dimension* dim = x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim();
    if (d < 0) {
      dim->set_dim_param("N");
    } else {
      dim->set_dim_value(d);
    }
  }
  for (const auto& [name, values] : ints) {
    onnx::AttributeProto* attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) attribute->add_ints(v);
  }
  for (const auto& [name, dims] : initializers) {
    onnx::TensorProto* tensor = graph->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(onnx::TensorProto::FLOAT);
    int64_t count = 1;
    for (int64_t d : dims) {
      tensor->add_dims(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i) tensor->add_float_data(1.0f);
    node->add_input(name);
  }
  onnx::ValueInfoProto* y = graph->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
}

}  // namespace

TEST_F(GeRunE2ETest, AZeroStrideExitsOneNamingTheRule) {
  // It was SIGFPE (exit 136) inside libonnx's convPoolShapeInference, in ge-run and ge-compile.
  const std::vector<int64_t> image{1, 4, 8, 8};
  const std::vector<std::pair<std::string, std::vector<int64_t>>> weights{{"w", {4, 4, 3, 3}}};
  for (const std::string op : {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"}) {
    const bool conv = op == "Conv" || op == "ConvTranspose";
    std::vector<std::pair<std::string, std::vector<int64_t>>> ints{{"strides", {0, 0}}};
    if (!conv) ints.push_back({"kernel_shape", {2, 2}});
    const fs::path model = tmp_ / (op + ".onnx");
    write_attribute_model(model, op, image, ints, conv ? weights : decltype(weights){});
    for (const std::string tool : {GE_RUN_PATH, GE_COMPILE_PATH}) {
      std::vector<std::string> args{model.string()};
      if (tool == GE_RUN_PATH) args.insert(args.end(), {"--input", "x=random"});
      if (tool == GE_COMPILE_PATH) args.insert(args.end(), {"--output", (tmp_ / (op + ".gem")).string()});
      Outcome r = run_tool(tool, args);
      EXPECT_EQ(r.exit_code, 1) << tool << " " << op << ": " << r.output;
      EXPECT_CONTAINS(r.output, op + " 'n' (ai.onnx opset 13): attribute 'strides' is [0, 0]; strides must be >= 1");
    }
  }
  write_attribute_model(tmp_ / "pads.onnx", "MaxPool", image, {{"kernel_shape", {2, 2}}, {"pads", {0, -1, 0, 0}}}, {});
  Outcome r = ge_run({(tmp_ / "pads.onnx").string(), "--input", "x=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "attribute 'pads' is [0, -1, 0, 0]; pads must be >= 0");
}

TEST_F(GeRunE2ETest, EmptyInnerOrOuterDimsRunWithoutOneDnn) {
  // MatMul / Gemm with K = 0 or N = 0 were SIGFPE inside oneDNN, statically (any -O) and
  // with K known only at run time; numpy: zeros((2,0)) @ zeros((0,4)) == zeros((2,4)).
  write_attribute_model(tmp_ / "mm_k0.onnx", "MatMul", {2, 0}, {}, {{"w", {0, 4}}});
  write_attribute_model(tmp_ / "gemm_k0.onnx", "Gemm", {2, 0}, {}, {{"w", {0, 4}}});
  write_attribute_model(tmp_ / "mm_n0.onnx", "MatMul", {2, 3}, {}, {{"w", {3, 0}}});
  for (const char* name : {"mm_k0", "gemm_k0", "mm_n0"}) {
    for (const char* level : {"-O0", "-O2"}) {
      const fs::path out = tmp_ / (std::string(name) + level);
      Outcome r = ge_run({(tmp_ / (std::string(name) + ".onnx")).string(), "--input", "x=random", level, "--output-dir",
                          out.string()});
      EXPECT_EQ(r.exit_code, 0) << name << " " << level << ": " << r.output;
      EXPECT_CONTAINS(r.output, std::string(name) == "mm_n0" ? "float32[2,0] {}" : "float32[2,4]");
      if (std::string(name) == "mm_n0") continue;
      onnx::TensorProto y;
      std::ifstream file(out / "output_0.pb", std::ios::binary);
      ASSERT_TRUE(y.ParseFromIstream(&file)) << name;
      const std::string raw = y.raw_data();
      ASSERT_EQ(raw.size(), 8 * sizeof(float)) << name;
      EXPECT_EQ(raw, std::string(raw.size(), '\0')) << name << ": not all zeros";
    }
  }
  Outcome r = run_tool(GE_COMPILE_PATH, {(tmp_ / "mm_k0.onnx").string(), "--output", (tmp_ / "mm_k0.gem").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // A batch of 0 known at run time: Conv gave "a required input or output address is null".
  write_attribute_model(tmp_ / "conv_n0.onnx", "Conv", {-1, 2, 5, 5}, {}, {{"w", {3, 2, 3, 3}}});
  write_npy(tmp_ / "x0.npy", "<f4", "(0, 2, 5, 5)", 0);
  r = ge_run({(tmp_ / "conv_n0.onnx").string(), "--input", "x=" + (tmp_ / "x0.npy").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "float32[0,3,3,3] {}");
}

namespace {

/// Adds `attribute` to the one node of the model at `path`; `opset` > 0 replaces its opset.
void add_attribute(const fs::path& path, const onnx::AttributeProto& attribute, int64_t opset = 0) {
  onnx::ModelProto model;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(model.ParseFromIstream(&in)) << path;
  }
  *model.mutable_graph()->mutable_node(0)->add_attribute() = attribute;
  if (opset > 0) model.mutable_opset_import(0)->set_version(opset);
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
}

}  // namespace

TEST_F(GeRunE2ETest, HugeAttributesEndCleanlyAndSoon) {
  // DepthToSpace blocksize 2^62: its square is 0 in int64, SIGFPE in libonnx's inference.
  onnx::AttributeProto blocksize;
  blocksize.set_name("blocksize");
  blocksize.set_type(onnx::AttributeProto::INT);
  blocksize.set_i(int64_t{1} << 62);
  write_attribute_model(tmp_ / "d2s.onnx", "DepthToSpace", {1, 4, 2, 2}, {}, {});
  add_attribute(tmp_ / "d2s.onnx", blocksize);
  Outcome r = ge_run({(tmp_ / "d2s.onnx").string(), "--input", "x=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "attribute 'blocksize' is 4611686018427387904; blocksize must be between 1 and 2147483647");
  // LayerNormalization axis 2^63 - 1: libonnx indexed the shape with it (SIGSEGV).
  onnx::AttributeProto axis;
  axis.set_name("axis");
  axis.set_type(onnx::AttributeProto::INT);
  axis.set_i(INT64_MAX);
  write_attribute_model(tmp_ / "ln.onnx", "LayerNormalization", {2, 3}, {}, {{"scale", {3}}});
  add_attribute(tmp_ / "ln.onnx", axis, 17);
  r = ge_run({(tmp_ / "ln.onnx").string(), "--input", "x=random"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "attribute 'axis' is 9223372036854775807; axis must be in [-2, 2) for input 0 of rank 2");
  // kernel_shape 2^62 with auto_pad SAME is legal; the pools looped over every tap (a
  // hang), on the reference kernels and on oneDNN.
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER"}) {
    onnx::AttributeProto same;
    same.set_name("auto_pad");
    same.set_type(onnx::AttributeProto::STRING);
    same.set_s(pad);
    for (const std::string op : {"MaxPool", "AveragePool", "LpPool"}) {
      const fs::path model = tmp_ / (op + pad + ".onnx");
      write_attribute_model(model, op, {1, 2, 5, 5}, {{"kernel_shape", {int64_t{1} << 62, int64_t{1} << 62}}}, {});
      add_attribute(model, same);
      for (const char* level : {"-O0", "-O2"}) {
        r = run_tool("timeout", {"20", GE_RUN_PATH, model.string(), "--input", "x=random", level});
        EXPECT_EQ(r.exit_code, 0) << op << " " << pad << " " << level << ": " << r.output;
        EXPECT_CONTAINS(r.output, "float32[1,2,5,5]");
      }
    }
  }
}

// ---- issue 37: --precision, -v's nodes per precision, --check-precision ----

namespace {

/// Whether the cpu backend has bfloat16 arithmetic here: AVX512_BF16 by cpuid, oneDNN
/// not capped below it.
bool cpu_has_bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 5)) != 0 && std::getenv("ONEDNN_MAX_CPU_ISA") == nullptr &&
         std::getenv("DNNL_MAX_CPU_ISA") == nullptr;
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

}  // namespace

TEST_F(GeRunE2ETest, PrecisionBf16RunsTheHeavyOpsInBf16AndVerboseListsThem) {
  const std::vector<std::string> io = {"--input", (kData / "input_0.pb").string(), "--expected-dir", kData.string()};
  std::vector<std::string> args = {kModel.string(), "--precision", "bf16", "-v", "--rtol", "0", "--atol", "1e-2"};
  args.insert(args.end(), io.begin(), io.end());
  Outcome r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
  if (cpu_has_bf16()) {
    EXPECT_CONTAINS(r.output,
                    "precision: bf16; nodes by the precision their kernels computed in:\n"
                    "  bf16: 3 nodes: Conv 'conv1', Conv 'conv2', Gemm 'fc'\n"
                    "  fp32: 5 nodes (the model's own types): ");
    EXPECT_EQ(r.output.find("no bfloat16 arithmetic"), std::string::npos) << r.output;
  } else {
    EXPECT_CONTAINS(r.output, "backend cpu: this CPU has no bfloat16 arithmetic");
    EXPECT_CONTAINS(r.output, "precision: fp32 (bf16 asked; the backend has none); nodes by the precision");
  }
  // mixed: small_cnn's heavy ops write no graph output and multiply no two activations.
  args = {kModel.string(), "--precision", "mixed", "--rtol", "0", "--atol", "1e-2"};
  args.insert(args.end(), io.begin(), io.end());
  r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // --check-passes holds the passes to the float32 oracle (bf16 rounding is no pass's
  // fault) and the loaded bf16 model to 3e-2 of each output's scale.
  args = {kModel.string(), "--precision", "bf16", "-O3", "--check-passes", "-v"};
  args.insert(args.end(), io.begin(), io.begin() + 2);
  r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "--check-passes: the loaded model, run in the task sink on backend 'cpu', checked");
  // Without --precision, -v lists no precisions.
  args = {kModel.string(), "-v"};
  args.insert(args.end(), io.begin(), io.end());
  r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("nodes by the precision"), std::string::npos) << r.output;
}

TEST_F(GeRunE2ETest, WithoutBfloat16ArithmeticItSaysSoOnceAndRunsFloat32) {
  // oneDNN capped below avx512_core_bf16: the cpu backend refuses bf16; the results are
  // float32's (numpy's within 1e-5), the float32 check run agrees exactly.
  Outcome r = run_tool(
      "env", {"ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI", GE_RUN_PATH, kModel.string(), "--precision", "bf16",
              "--check-precision", "-v", "--input", (kData / "input_0.pb").string(), "--expected-dir", kData.string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "backend cpu: this CPU has no bfloat16 arithmetic"), 1u) << r.output;
  EXPECT_CONTAINS(r.output, ": running float32 instead of bf16");
  EXPECT_CONTAINS(r.output, ": OK, max abs error");
  EXPECT_CONTAINS(r.output, "precision: fp32 (bf16 asked; the backend has none); nodes by the precision");
  EXPECT_EQ(r.output.find("  bf16: "), std::string::npos) << r.output;
  EXPECT_CONTAINS(r.output,
                  "check precision: fp32 (bf16 asked; the backend has none) against fp32 on the same inputs:\n"
                  "  output 0 'output': max abs error 0, max rel error 0, max abs / max |fp32| 0 (fp32 max |x| ");
  // npu_sim has no bfloat16 arithmetic at all.
  r = ge_run({kModel.string(), "--backend", "npu_sim", "--precision", "mixed", "--input",
              (kData / "input_0.pb").string(), "--expected-dir", kData.string(), "--atol", "1e-4"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "backend 'npu_sim' has no mixed arithmetic: running float32 instead of mixed"), 1u)
      << r.output;
}

TEST_F(GeRunE2ETest, CheckPrecisionReportsEachOutputsErrorAgainstFloat32) {
  Outcome r =
      ge_run({kModel.string(), "--precision", "bf16", "--check-precision", "--input", (kData / "input_0.pb").string()});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string header = std::string("check precision: ") +
                             (cpu_has_bf16() ? "bf16" : "fp32 (bf16 asked; the backend has none)") +
                             " against fp32 on the same inputs:\n  output 0 'output': max abs error ";
  const size_t at = r.output.find(header);
  ASSERT_NE(at, std::string::npos) << r.output;
  const double max_abs = std::strtod(r.output.c_str() + at + header.size(), nullptr);
  if (cpu_has_bf16()) {
    EXPECT_GT(max_abs, 0.0) << r.output;  // bf16 rounding shows
    EXPECT_LT(max_abs, 1e-2) << r.output;
  } else {
    EXPECT_EQ(max_abs, 0.0) << r.output;
  }
  EXPECT_CONTAINS(r.output, ", max rel error ");
  EXPECT_CONTAINS(r.output, " 10 elements); argmax over the last axis agrees in ");
  EXPECT_CONTAINS(r.output, " of 1 rows\n");
  EXPECT_EQ(r.output.find("NON-FINITE"), std::string::npos) << r.output;
}

TEST_F(GeRunE2ETest, CheckPrecisionFlagsInfinitiesThatFloat32DoesNotHave) {
  // x[0] = 3.4e38 is finite in float32 but above bfloat16's largest finite value: rounded
  // to bfloat16 it is inf, and so is every element of x @ ones.
  const fs::path model = tmp_ / "matmul.onnx";
  write_attribute_model(model, "MatMul", {1, 64}, {}, {{"w", {64, 64}}});
  const fs::path x = tmp_ / "x.npy";
  write_npy(x, "<f4", "(1, 64)", 64 * sizeof(float));
  {
    std::fstream file(x, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(x) - 64 * sizeof(float)));
    const float huge = 3.4e38f;
    file.write(reinterpret_cast<const char*>(&huge), sizeof(huge));
  }
  Outcome r = ge_run({model.string(), "--input", "x=" + x.string(), "--precision", "bf16", "--check-precision"});
  EXPECT_EQ(r.exit_code, 0) << r.output;  // a report
  if (cpu_has_bf16()) {
    EXPECT_CONTAINS(r.output,
                    "  output 0 'y': max abs error 0, max rel error 0, max abs / max |fp32| 0 (fp32 max |x| 3.4e+38, "
                    "64 elements); argmax over the last axis agrees in 1 of 1 rows; NON-FINITE: 64 of 64 elements are "
                    "NaN or inf where fp32's are finite\n");
  } else {
    EXPECT_EQ(r.output.find("NON-FINITE"), std::string::npos) << r.output;
  }
}

TEST_F(GeRunE2ETest, PrecisionOptionErrors) {
  Outcome r = ge_run({kModel.string(), "--precision", "fp16"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--precision expects fp32, bf16 or mixed, got 'fp16'");
  r = ge_run({kModel.string(), "--check-precision"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "--check-precision compares a reduced precision with float32: give --precision bf16");
}

TEST_F(GeRunE2ETest, ACompiledModelRunsInThePrecisionItWasCompiledWith) {
  const std::string gem = (tmp_ / "bf16.gem").string();
  Outcome compiled = run_tool(GE_COMPILE_PATH, {"--model", kModel.string(), "--output", gem, "--precision", "bf16"});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  const std::string stored = cpu_has_bf16() ? "bf16" : "fp32";
  const std::string other = cpu_has_bf16() ? "fp32" : "mixed";
  const std::vector<std::string> io = {
      "--input", (kData / "input_0.pb").string(), "--expected-dir", kData.string(), "--rtol", "0", "--atol", "1e-2"};
  std::vector<std::string> args = {gem, "-v"};
  args.insert(args.end(), io.begin(), io.end());
  Outcome r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (stored == "bf16") {  // a bf16 .gem lists its precisions without --precision
    EXPECT_CONTAINS(r.output, "precision: bf16; nodes by the precision their kernels computed in:\n  bf16: 3 nodes: ");
  } else {  // compiled fp32 (said so): -v lists them only with --precision
    EXPECT_EQ(r.output.find("nodes by the precision"), std::string::npos) << r.output;
  }
  args = {gem, "--precision", stored};
  args.insert(args.end(), io.begin(), io.end());
  r = ge_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  args = {gem, "--precision", other};
  args.insert(args.end(), io.begin(), io.end());
  r = ge_run(args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "model file '" + gem + "' was compiled with precision " + stored + ", not " + other);
  r = ge_run({gem, "--precision", "bf16", "--check-precision"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output,
                  "--check-precision compiles the model again in float32, but '" + gem + "' is compiled already");
}
