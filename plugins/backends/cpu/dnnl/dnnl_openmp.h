#pragma once
// The two OpenMP runtime calls the fast paths make, declared here rather than through
// <omp.h>: Debian's libdnnl runs on GCC's libgomp, which the build links directly, and a
// clang build (the fuzz tree) has no <omp.h> without LLVM's libomp.

extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int threads);
}
