#pragma once
/// The pattern-fusion SDK: a pass written as patterns, a requirement guard and a
/// replacement. The framework finds matches, checks that rewriting is safe and rewires.
///
///   class ConvRelu final : public PatternFusionPass {
///    public:
///     std::string name() const override { return "fuse_conv_relu"; }
///     std::vector<Pattern> patterns() const override { ... }
///     Status replacement(const Match& m, Replacement& r) const override {
///       Node* fused = r.add_node("FusedConv", {r.use("x"), r.use("w")}, {}, "ge");
///       ...
///     }
///   };
///
/// Each sweep visits the nodes in reverse stable topological order (consumers first, so
/// the largest pattern rooted at the end of a chain wins over a smaller one inside it)
/// and, at each, tries the patterns in order; the first that matches and passes every
/// check is rewritten at once.
/// Sweeps repeat until one finds nothing (at most max_sweeps). Matches therefore never
/// overlap and the result is deterministic. Each rewrite is logged at info level (-v), as
/// is a "<pass>: N fused, M rejected" summary of a run that met any anchor. A match is
/// rejected, with the reason logged at debug level (-vv) and kept in events(), when:
/// - a matched node other than the root has an output that is a graph output, is
///   captured by a subgraph, or has a user outside the match;
/// - a matched node has control edges;
/// - meets_requirements() says no, or replacement() returns an error other than kInternal;
/// - a replacement output infers to a different dtype or shape than the output it replaces;
/// - the target backend (PassContext::target_backend, when set) does not support a new
///   node with its inferred dtypes.
/// A rejection is reported once per run even when later sweeps meet it again.
/// Subgraphs (If/Loop/Scan bodies) are processed too, innermost last.

#include <set>
#include <string>
#include <vector>

#include "ge/plugin_api/pass.h"
#include "ge/plugin_api/pattern.h"
#include "ge/plugin_api/pattern_match.h"
#include "ge/plugin_api/replacement.h"

namespace ge {

/// One outcome at one anchor, in the order they happened.
struct FusionEvent {
  enum class Kind { kFused, kRejected };
  Kind kind = Kind::kRejected;
  std::string pattern;
  std::string anchor;  ///< Node::describe() of the anchor
  std::string reason;  ///< why a match was rejected; for kFused, what replaced it
  /// "fuse_x: pattern 'p' at Relu 'r': rejected: <reason>" (the logged line).
  std::string to_string(const std::string& pass_name) const;
};

class PatternFusionPass : public Pass {
 public:
  /// The patterns to look for, tried in this order at each anchor. Called once per run.
  virtual std::vector<Pattern> patterns() const = 0;
  /// A guard on a structural match (values, shapes, dtypes). On false, `reason` says why.
  virtual bool meets_requirements(const Match& match, const PassContext& context, std::string& reason) const;
  /// Builds the replacement of `match`. An error other than kInternal rejects the match
  /// with the error's message as the reason; kInternal fails the pass.
  virtual Status replacement(const Match& match, Replacement& replacement) const = 0;

  Status run(Graph& graph, PassContext& context, bool& changed) final;

  /// What the last run() matched and rejected.
  const std::vector<FusionEvent>& events() const { return events_; }
  /// Sweeps per graph before giving up on reaching a fixed point.
  void set_max_sweeps(int sweeps) { max_sweeps_ = sweeps; }

 private:
  Status run_on(Graph& graph, const std::vector<Pattern>& patterns, PassContext& context, bool& changed);
  /// Logs `event` (a rewrite at info, a rejection at debug level) and keeps it; a
  /// rejection already reported is dropped.
  void report(FusionEvent event);

  std::vector<FusionEvent> events_;
  std::set<std::string> reported_;  // rejection lines already logged this run
  int max_sweeps_ = 8;
};

}  // namespace ge
