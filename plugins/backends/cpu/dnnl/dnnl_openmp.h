#pragma once
// The OpenMP runtime calls the fast paths make, declared here rather than through
// <omp.h>, and `parallel_chunks`, the one parallel loop of their host steps. Debian's
// libdnnl runs on GCC's libgomp, which the build links directly; the fast paths are built
// without -fopenmp (a clang build, the fuzz tree, has no <omp.h> without LLVM's libomp),
// so `#pragma omp parallel` would compile to a serial loop: parallel_chunks calls
// GOMP_parallel, what GCC compiles that pragma to, itself. A host step's team is then the
// launch's oneDNN team (dnnl_program.cc sets its size to the kernel's threads).

#include <algorithm>
#include <cstdint>

extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int threads);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
void GOMP_parallel(void (*body)(void*), void* data, unsigned threads, unsigned flags);
}

namespace ge::cpu_dnnl {

/// body(begin, end) over [0, count) in `grain`-aligned chunks, one per thread of the
/// launch's team (omp_get_max_threads()); serial, with no region, for one thread or one
/// grain of work.
template <typename Body>
void parallel_chunks(int64_t count, int64_t grain, const Body& body) {
  grain = std::max<int64_t>(grain, 1);
  const int64_t grains = (count + grain - 1) / grain;
  const int64_t threads = std::min<int64_t>(omp_get_max_threads(), grains);
  if (threads <= 1) {
    if (count > 0) body(int64_t{0}, count);
    return;
  }
  struct Region {
    const Body* body;
    int64_t count, grain, grains;
  } region{&body, count, grain, grains};
  GOMP_parallel(
      [](void* data) {
        const auto& r = *static_cast<const Region*>(data);
        const int64_t team = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t first = r.grains * t / team, last = r.grains * (t + 1) / team;
        const int64_t begin = first * r.grain, end = std::min(last * r.grain, r.count);
        if (begin < end) (*r.body)(begin, end);
      },
      &region, static_cast<unsigned>(threads), 0);
}

}  // namespace ge::cpu_dnnl
