#pragma once
/// C++ source for one autofused group: the loop nest of ge/autofuse/loop_plan.h with the
/// program's instructions inlined into `#pragma omp simd` loops, shapes and constants
/// baked in. The source exports
///   extern "C" int ge_autofuse_abi();                       // kAbiVersion
///   extern "C" void ge_autofuse_run(const void* const* inputs, void* const* outputs);
/// (the online compiler appends `extern "C" const char ge_autofuse_key[]`, its cache key)
/// and computes with the formulas of the interpreter (float arithmetic, Pow and
/// reductions through double), compiled without floating-point contraction. Without
/// `vector_math` its elementwise results equal the interpreter's bit for bit; with it,
/// exp, log, tanh, erf, sin and cos (and so Sigmoid) are glibc libmvec's SIMD variants,
/// within a few ulp of the scalar functions, and those loops vectorise. Bool inputs load
/// as 0 or 1 and bool outputs store one byte, float16 inputs widen exactly and float16
/// outputs round to nearest even, bit for bit as the interpreter does; without inner axes
/// a tile's float16 elements convert at once (F16C or AVX-512 where the CPU has them), so
/// that the loops compute in float32 only. A program with reductions walks each row once per
/// reduction level (softmax: max, sum, outputs); a costly value (exp, ...) computed in
/// one walk and needed in a later one is kept in a row buffer, not computed again. A
/// program with inner axes (a reduction over axes that are not innermost) walks tiles of
/// (row, up to 256 lanes of the inner axes): each walk loops over the reduced extent with
/// the lanes innermost, so the loops vectorise along the lanes, and each lane accumulates
/// its reduction in order, as the interpreter does.

#include <string>

#include "ge/autofuse/loop_ir.h"

namespace ge::cpu_autofuse {

inline constexpr int kAbiVersion = 1;

/// The source of `program`'s kernel; its rows are split over up to `threads` OpenMP threads.
std::string generate_source(const autofuse::Program& program, int threads, bool vector_math = true);

}  // namespace ge::cpu_autofuse
