#pragma once
/// The small models the task-sink and capture tests run, several per role so that a
/// backend with few kernels still runs one (first_supported picks). Weights are seeded.

#include <cstdint>
#include <vector>

#include "suite.h"

namespace ge::backend_conformance {

/// Static-shape models of a few layers: CNN, MLP, elementwise chains.
std::vector<CandidateGraph> model_candidates(uint32_t seed);
/// Models with two independent branches joined at the end (for two streams).
std::vector<CandidateGraph> branch_candidates(uint32_t seed);
/// Three nodes in a chain over inputs %x and %y, output %out (for capture).
std::vector<CandidateGraph> chain_candidates();
/// Four nodes over inputs %x and %y in topological order a, b, c, d: b and c both read
/// a, d = f(b, c) is the output %d (for a capture that forks and joins).
std::vector<CandidateGraph> fork_join_candidates();

}  // namespace ge::backend_conformance
