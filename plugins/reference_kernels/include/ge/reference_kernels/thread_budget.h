#pragma once
// The cpu backend's thread policy for its fast kernels (oneDNN's, Winograd's): a kernel
// prepared for `threads` intra-op threads shares them with the fast kernels running at
// the same moment on other streams or sessions, so that streams times intra-op threads
// never exceed the budget. One counter for the process.

namespace ge::reference_kernels {

/// Counts one fast-kernel launch in flight for its lifetime.
class FastKernelLaunch {
 public:
  /// `threads`: what the kernel was prepared for (>= 1).
  explicit FastKernelLaunch(int threads);
  ~FastKernelLaunch();
  FastKernelLaunch(const FastKernelLaunch&) = delete;
  FastKernelLaunch& operator=(const FastKernelLaunch&) = delete;

  /// The threads this launch may use: all of them alone, an equal share (at least one)
  /// with others in flight.
  int threads() const { return threads_; }

 private:
  int threads_;
};

}  // namespace ge::reference_kernels
