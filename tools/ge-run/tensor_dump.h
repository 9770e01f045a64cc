#pragma once
/// ge-run --dump-tensors DIR: every intermediate value of the graph as compiled (after the
/// passes of the chosen -O level) written as an ONNX TensorProto file, plus an index, so a
/// run can be bisected against another engine (e.g. ONNX Runtime with every value made an
/// output). Values the passes fused away do not exist in the compiled graph and so are not
/// written; values inside subgraph bodies (If/Loop/Scan) and sequence or optional values
/// are not written either.
///
/// The dump runs the compiled graph once more, without passes, on a copy whose outputs are
/// every top-level node output: no core change, the same kernels and backend as the run.

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ge/executor.h"
#include "ge/graph.h"
#include "ge/plugin_host.h"
#include "ge/session.h"
#include "ge/status.h"

namespace ge::tools {

/// One value of a dump.
struct DumpedValue {
  std::string name;    ///< the value's name in the compiled graph
  std::string file;    ///< the .pb file, relative to the dump folder
  std::string node;    ///< the producing node's name
  std::string op;      ///< its op type, "domain::Op" outside the default domain
  std::string format;  ///< its storage format in the compiled graph ("" plain); written plain
};

/// A copy of `compiled` whose outputs are its named tensor-valued node outputs, in a
/// topological order; a value in a blocked format is output through a ge::TransData to
/// plain. `dumped` gets one entry per output, in order, with its file name.
Result<std::unique_ptr<Graph>> make_dump_graph(const Graph& compiled, std::vector<DumpedValue>& dumped);

/// `value_name` as a file name: bytes outside [A-Za-z0-9._-] become '_' (a leading '.' too),
/// then "_2", "_3", ... until it is unique, ignoring case, among `taken` (which it joins).
std::string dump_file_name(const std::string& value_name, std::set<std::string>& taken);

/// Runs `session`'s compiled graph once on `inputs` (no passes, on the session's backend,
/// within `options`' memory limit and threads) and writes DIR/FILE.pb for every value of
/// make_dump_graph plus DIR/index.tsv: a header, then per value its name, file, dtype,
/// shape, compiled storage format, producing node and op, tab-separated (a tab, newline or
/// backslash in a name is written \t, \n, \\). Prints one summary line.
Status dump_tensors(const PluginHost& host, const Session& session, const SessionOptions& options,
                    const NamedValues& inputs, const std::filesystem::path& dir);

}  // namespace ge::tools
