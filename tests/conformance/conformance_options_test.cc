#include "conformance_options.h"

#include <gtest/gtest.h>

namespace ge::conformance {
namespace {

TEST(ConformanceOptionsTest, Defaults) {
  Result<ConformanceOptions> options = parse_options({});
  ASSERT_TRUE(options.is_ok());
  EXPECT_EQ(options->opt_levels, std::vector<int>{2});
  EXPECT_EQ(options->categories, default_categories());
  EXPECT_EQ(options->jobs, 2);
  EXPECT_EQ(options->timeout_seconds, 20);
  EXPECT_EQ(options->data_dir, "/usr/share/libonnx-testdata/data");
  EXPECT_FALSE(options->expectations.has_value());
  EXPECT_FALSE(options->list_failures);
}

TEST(ConformanceOptionsTest, ParsesEveryFlag) {
  Result<ConformanceOptions> options = parse_options({"--category", "node",
                                                      "--category", "simple",
                                                      "--filter",   "abs",
                                                      "-O",         "0",
                                                      "-O3",        "--expectations",
                                                      "e.txt",      "--update-expectations",
                                                      "u.txt",      "--list-failures",
                                                      "-j",         "4",
                                                      "--timeout",  "2.5",
                                                      "--data-dir", "/d",
                                                      "--plugins",  "p.toml",
                                                      "--no-fork",  "-vv"});
  ASSERT_TRUE(options.is_ok()) << options.status().to_string();
  EXPECT_EQ(options->categories, (std::vector<std::string>{"node", "simple"}));
  EXPECT_EQ(options->filters, std::vector<std::string>{"abs"});
  EXPECT_EQ(options->opt_levels, (std::vector<int>{0, 3}));
  EXPECT_EQ(*options->expectations, "e.txt");
  EXPECT_EQ(*options->update_expectations, "u.txt");
  EXPECT_TRUE(options->list_failures);
  EXPECT_EQ(options->jobs, 4);
  EXPECT_EQ(options->timeout_seconds, 2.5);
  EXPECT_EQ(options->data_dir, "/d");
  EXPECT_EQ(options->plugin_files, std::vector<std::filesystem::path>{"p.toml"});
  EXPECT_TRUE(options->no_fork);
  EXPECT_EQ(options->verbosity, 2);
}

TEST(ConformanceOptionsTest, RejectsBadValues) {
  EXPECT_EQ(parse_options({"-O", "4"}).status().message(), "-O expects an integer from 0 to 3, got '4'");
  EXPECT_EQ(parse_options({"-jx"}).status().message(), "-j expects an integer from 1 to 256, got 'x'");
  EXPECT_EQ(parse_options({"--timeout", "0"}).status().message(),
            "--timeout expects a positive number of seconds, got '0'");
  EXPECT_EQ(parse_options({"--filter"}).status().message(), "--filter expects a value");
  EXPECT_EQ(parse_options({"--bogus"}).status().message(), "unknown argument '--bogus'");
}

}  // namespace
}  // namespace ge::conformance
