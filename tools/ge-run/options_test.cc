#include "options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ge::tools {
namespace {

RunOptions parse_ok(const std::vector<std::string>& args) {
  Result<RunOptions> options = parse_options(args);
  EXPECT_TRUE(options.is_ok()) << options.status().to_string();
  return options.is_ok() ? *options : RunOptions();
}

std::string error_of(const std::vector<std::string>& args) {
  Result<RunOptions> options = parse_options(args);
  EXPECT_FALSE(options.is_ok());
  if (options.is_ok()) return {};
  EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument);
  return options.status().message();
}

TEST(OptionsTest, DefaultsWithOnlyAModel) {
  RunOptions options = parse_ok({"model.onnx"});
  ASSERT_TRUE(options.model);
  EXPECT_EQ(*options.model, "model.onnx");
  EXPECT_EQ(options.backend, "cpu");
  EXPECT_EQ(options.passes.opt_level, 2);
  EXPECT_FALSE(options.passes.explicit_passes);
  EXPECT_FALSE(options.passes.verify_each);
  EXPECT_FALSE(options.repeat);
  EXPECT_FALSE(options.list_plugins);
  EXPECT_EQ(options.verbosity, 0);
  EXPECT_EQ(options.rtol, 1e-5);
  EXPECT_EQ(options.atol, 1e-5);
  EXPECT_TRUE(options.inputs.empty());
}

TEST(OptionsTest, EveryOption) {
  RunOptions options = parse_ok({"--plugins",
                                 "a.toml",
                                 "--plugins=b.toml",
                                 "m.onnx",
                                 "--input",
                                 "x=in.npy",
                                 "--input",
                                 "w.pb",
                                 "--input=y=random",
                                 "--output-dir",
                                 "out",
                                 "--backend",
                                 "npu_sim",
                                 "-O",
                                 "3",
                                 "--repeat",
                                 "5",
                                 "-vv",
                                 "--passes",
                                 "dce,cse",
                                 "--disable-pass",
                                 "fold",
                                 "--disable-pass=fuse",
                                 "--dump-graph",
                                 "dump",
                                 "--verify-each",
                                 "--expected-dir",
                                 "exp",
                                 "--rtol",
                                 "1e-3",
                                 "--atol=0.5"});
  EXPECT_EQ(options.plugin_files, (std::vector<std::filesystem::path>{"a.toml", "b.toml"}));
  EXPECT_EQ(*options.model, "m.onnx");
  ASSERT_EQ(options.inputs.size(), 3u);
  EXPECT_EQ(*options.inputs[0].name, "x");
  EXPECT_EQ(options.inputs[0].source, "in.npy");
  EXPECT_FALSE(options.inputs[1].name);
  EXPECT_EQ(options.inputs[1].source, "w.pb");
  EXPECT_EQ(*options.inputs[2].name, "y");
  EXPECT_TRUE(options.inputs[2].is_random());
  EXPECT_EQ(*options.output_dir, "out");
  EXPECT_EQ(options.backend, "npu_sim");
  EXPECT_EQ(options.passes.opt_level, 3);
  EXPECT_EQ(*options.repeat, 5);
  EXPECT_EQ(options.verbosity, 2);
  EXPECT_EQ(*options.passes.explicit_passes, (std::vector<std::string>{"dce", "cse"}));
  EXPECT_EQ(options.passes.disabled_passes, (std::set<std::string>{"fold", "fuse"}));
  EXPECT_EQ(*options.passes.dump_dir, "dump");
  EXPECT_TRUE(options.passes.verify_each);
  EXPECT_EQ(*options.expected_dir, "exp");
  EXPECT_EQ(options.rtol, 1e-3);
  EXPECT_EQ(options.atol, 0.5);
}

TEST(OptionsTest, OptLevelForms) {
  EXPECT_EQ(parse_ok({"m.onnx", "-O0"}).passes.opt_level, 0);
  EXPECT_EQ(parse_ok({"m.onnx", "-O", "1"}).passes.opt_level, 1);
  EXPECT_NE(error_of({"m.onnx", "-O4"}).find("-O expects an integer in [0, 3], got '4'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "-Ofast"}).find("got 'fast'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "-O"}).find("option -O expects a value"), std::string::npos);
}

TEST(OptionsTest, ShrinkIsAFlag) {
  EXPECT_FALSE(parse_ok({"m.onnx"}).shrink);
  EXPECT_TRUE(parse_ok({"m.gem", "--shrink"}).shrink);
  EXPECT_NE(error_of({"m.onnx", "--shrink=1"}).find("takes no value"), std::string::npos);
}

TEST(OptionsTest, VerbosityAccumulates) {
  EXPECT_EQ(parse_ok({"m.onnx", "-v"}).verbosity, 1);
  EXPECT_EQ(parse_ok({"m.onnx", "-v", "-vv", "--verbose"}).verbosity, 4);
}

TEST(OptionsTest, ListPluginsNeedsNoModel) {
  RunOptions options = parse_ok({"--list-plugins"});
  EXPECT_TRUE(options.list_plugins);
  EXPECT_FALSE(options.model);
}

TEST(OptionsTest, HelpNeedsNoModel) {
  EXPECT_TRUE(parse_ok({"--help"}).help);
  EXPECT_TRUE(parse_ok({"-h"}).help);
  EXPECT_NE(usage().find("--expected-dir DIR"), std::string::npos);
}

TEST(OptionsTest, DoubleDashAllowsDashModel) { EXPECT_EQ(*parse_ok({"--", "-odd.onnx"}).model, "-odd.onnx"); }

TEST(OptionsTest, AutofusionModes) {
  EXPECT_EQ(parse_ok({"m.onnx", "--autofusion", "interpret"}).autofusion, "interpret");
  EXPECT_EQ(parse_ok({"m.onnx", "--autofusion=codegen"}).autofusion, "codegen");
  const RunOptions off = parse_ok({"m.onnx", "--autofusion", "off"});
  EXPECT_EQ(off.passes.disabled_passes.count("autofusion"), 1u);
  EXPECT_NE(error_of({"m.onnx", "--autofusion", "jit"}).find("expects off, interpret or codegen"), std::string::npos);
}

TEST(OptionsTest, EmptyPassListIsAnEmptyPipeline) {
  RunOptions options = parse_ok({"m.onnx", "--passes="});
  ASSERT_TRUE(options.passes.explicit_passes);
  EXPECT_TRUE(options.passes.explicit_passes->empty());
}

TEST(OptionsTest, CheckPassesAndItsTolerances) {
  const RunOptions plain = parse_ok({"m.onnx"});
  EXPECT_FALSE(plain.passes.check_passes);
  const RunOptions options = parse_ok({"m.onnx", "--check-passes", "--check-rtol=0.01", "--check-atol", "0.5"});
  EXPECT_TRUE(options.passes.check_passes);
  EXPECT_EQ(options.passes.check_rtol, 0.01);
  EXPECT_EQ(options.passes.check_atol, 0.5);
  EXPECT_NE(error_of({"m.onnx", "--check-rtol", "0.1"}).find("only with --check-passes"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--check-passes", "--check-atol", "-2"}).find("finite number >= 0, got '-2'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--check-passes=yes"}).find("takes no value"), std::string::npos);
}

TEST(OptionsTest, Streams) {
  EXPECT_EQ(parse_ok({"m.onnx"}).streams, 1);
  const RunOptions options = parse_ok({"m.onnx", "--streams", "4"});
  EXPECT_EQ(options.streams, 4);
  EXPECT_EQ(options.compile_options, std::vector<std::string>{"--streams"});  // a .gem refuses it
  EXPECT_NE(error_of({"m.onnx", "--streams", "0"}).find("--streams"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--streams=65"}).find("--streams"), std::string::npos);
  EXPECT_EQ(parse_ok({"m.onnx", "--super-kernels", "4096"}).super_kernel_max_bytes, 4096u);
  EXPECT_NE(error_of({"m.onnx", "--super-kernels", "-1"}).find("--super-kernels"), std::string::npos);
}

TEST(OptionsTest, MemoryAssignersAndOrder) {
  const RunOptions plain = parse_ok({"m.onnx"});
  EXPECT_TRUE(plain.memory_assigners.empty());
  EXPECT_EQ(plain.memory_order, ExecutionOrder::kStable);
  const RunOptions options =
      parse_ok({"m.onnx", "--memory-assigner", "naive", "--memory-assigner=hill_climb", "--memory-order", "priority"});
  EXPECT_EQ(options.memory_assigners, (std::vector<std::string>{"naive", "hill_climb"}));
  EXPECT_EQ(options.memory_order, ExecutionOrder::kMemoryPriority);
  EXPECT_NE(error_of({"m.onnx", "--memory-order", "fast"}).find("expects 'stable' or 'priority', got 'fast'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--memory-assigner="}).find("expects an assigner name"), std::string::npos);
}

TEST(OptionsTest, Threads) {
  EXPECT_EQ(parse_ok({"m.onnx"}).threads, 0);  // the backend's default: the machine's cores
  EXPECT_EQ(parse_ok({"m.onnx", "--threads", "2"}).threads, 2);
  EXPECT_EQ(parse_ok({"m.onnx"}).specialisations, 8u);
  EXPECT_EQ(parse_ok({"m.onnx", "--specialisations", "0"}).specialisations, 0u);
  EXPECT_NE(error_of({"m.onnx", "--specialisations", "-1"}).find("--specialisations"), std::string::npos);
  EXPECT_EQ(parse_ok({"m.onnx"}).specialise_after, 2);
  EXPECT_EQ(parse_ok({"m.onnx", "--specialise-after", "1"}).specialise_after, 1);
  EXPECT_NE(error_of({"m.onnx", "--specialise-after", "0"}).find("--specialise-after"), std::string::npos);
  EXPECT_EQ(parse_ok({"m.onnx", "--threads=1"}).threads, 1);
  EXPECT_NE(error_of({"m.onnx", "--threads", "0"}).find("--threads"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--threads", "many"}).find("got 'many'"), std::string::npos);
}

TEST(OptionsTest, Profile) {
  EXPECT_FALSE(parse_ok({"m.onnx"}).profile);
  const RunOptions options = parse_ok({"m.onnx", "--profile", "out/trace.json"});
  ASSERT_TRUE(options.profile);
  EXPECT_EQ(*options.profile, "out/trace.json");
  EXPECT_EQ(*parse_ok({"m.onnx", "--profile=t.json"}).profile, "t.json");
  EXPECT_NE(error_of({"m.onnx", "--profile="}).find("--profile expects a file to write the trace to"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--profile"}).find("option --profile expects a value"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--profile", "--repeat", "2"}).find("got option '--repeat'"), std::string::npos);
  EXPECT_NE(usage().find("--profile FILE"), std::string::npos);
}

TEST(OptionsTest, MemoryLimitAndDuration) {
  EXPECT_EQ(parse_ok({"m.onnx"}).memory_limit, 0u);  // the machine's physical memory
  EXPECT_EQ(parse_ok({"m.onnx", "--memory-limit", "4G"}).memory_limit, size_t{4} << 30);
  EXPECT_EQ(parse_ok({"m.onnx", "--memory-limit=512M"}).memory_limit, size_t{512} << 20);
  EXPECT_NE(error_of({"m.onnx", "--memory-limit", "4X"}).find("--memory-limit: '4X' is not a byte count"),
            std::string::npos);
  EXPECT_FALSE(parse_ok({"m.onnx"}).duration_seconds);
  EXPECT_DOUBLE_EQ(*parse_ok({"m.onnx", "--duration", "2.5"}).duration_seconds, 2.5);
  EXPECT_NE(error_of({"m.onnx", "--duration", "0"}).find("--duration expects a positive number of seconds, got '0'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--duration", "soon"}).find("got 'soon'"), std::string::npos);
  EXPECT_NE(usage().find("--memory-limit BYTES"), std::string::npos);
  EXPECT_NE(usage().find("--duration S"), std::string::npos);
}

TEST(OptionsTest, DumpGraphElidesLargeConstantsUnlessAskedForAll) {
  const RunOptions dump = parse_ok({"m.onnx", "--dump-graph", "d"});
  ASSERT_TRUE(dump.passes.dump_print.max_constant_elements);
  EXPECT_EQ(*dump.passes.dump_print.max_constant_elements, kDumpMaxConstantElements);
  const RunOptions full = parse_ok({"m.onnx", "--dump-graph", "d", "--dump-graph-constants"});
  EXPECT_FALSE(full.passes.dump_print.max_constant_elements);
  EXPECT_NE(error_of({"m.onnx", "--dump-graph-constants"}).find("applies only with --dump-graph DIR"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--dump-graph", "d", "--dump-graph-constants=1"}).find("takes no value"),
            std::string::npos);
  EXPECT_NE(usage().find("--dump-graph-constants"), std::string::npos);
}

TEST(OptionsTest, PrecisionAndItsCheck) {
  EXPECT_FALSE(parse_ok({"m.onnx"}).precision);  // not given: fp32, or a .gem's own
  EXPECT_FALSE(parse_ok({"m.onnx"}).check_precision);
  EXPECT_EQ(parse_ok({"m.onnx", "--precision", "fp32"}).precision, Precision::kFp32);
  EXPECT_EQ(parse_ok({"m.onnx", "--precision=bf16"}).precision, Precision::kBf16);
  const RunOptions mixed = parse_ok({"m.onnx", "--precision", "mixed", "--check-precision"});
  EXPECT_EQ(mixed.precision, Precision::kMixed);
  EXPECT_TRUE(mixed.check_precision);
  EXPECT_TRUE(mixed.compile_options.empty());  // a .gem takes --precision (its own)
  EXPECT_EQ(error_of({"m.onnx", "--precision", "fp16"}), "--precision expects fp32, bf16 or mixed, got 'fp16'");
  EXPECT_EQ(error_of({"m.onnx", "--precision=BF16"}), "--precision expects fp32, bf16 or mixed, got 'BF16'");
  EXPECT_EQ(error_of({"m.onnx", "--precision"}), "option --precision expects a value");
  EXPECT_EQ(error_of({"m.onnx", "--check-precision"}),
            "--check-precision compares a reduced precision with float32: give --precision bf16 or --precision mixed");
  EXPECT_EQ(error_of({"m.onnx", "--check-precision", "--precision", "fp32"}),
            "--check-precision compares a reduced precision with float32: give --precision bf16 or --precision mixed");
  EXPECT_EQ(error_of({"m.onnx", "--check-precision=yes", "--precision", "bf16"}),
            "option --check-precision takes no value, got '--check-precision=yes'");
}

TEST(OptionsTest, Errors) {
  EXPECT_NE(error_of({}).find("missing MODEL argument"), std::string::npos);
  EXPECT_NE(error_of({"a.onnx", "b.onnx"}).find("unexpected argument 'b.onnx': the model is already 'a.onnx'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--frobnicate"}).find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "-x"}).find("unknown option '-x'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--input"}).find("option --input expects a value"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--backend", "--repeat", "2"})
                .find("option --backend expects a value, got option '--repeat'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--input", "=x.npy"}).find("empty input name"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--input", "x="}).find("expected a .npy, .pb or .npz file or 'random'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--repeat", "0"}).find("--repeat expects an integer in [1, "), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--repeat", "3x"}).find("got '3x'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--passes", "a,,b"}).find("empty pass name"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--verify-each=1"}).find("takes no value"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--expected-dir", "d", "--rtol", "-1"}).find("finite number >= 0, got '-1'"),
            std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--expected-dir", "d", "--atol", "nan"}).find("got 'nan'"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--rtol", "0.1"}).find("only with --expected-dir"), std::string::npos);
  EXPECT_NE(error_of({"m.onnx", "--backend="}).find("--backend expects a backend name"), std::string::npos);
}

}  // namespace
}  // namespace ge::tools
