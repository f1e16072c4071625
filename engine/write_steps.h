// Write steps: each system call by which meeplecam changes a file on disk (create, write, fsync,
// rename, truncate) is one step. The crash tests arm a kill at every step in turn, in a forked
// child, and prove that what is left on disk recovers everything confirmed
// (tests/engine/crash_test.cpp). Unarmed, a step only counts.
#pragma once

namespace meeplecam::write_steps {

// Counts one step; kills this process (SIGKILL, no clean-up) when the armed step is reached.
void step();
// Arms a SIGKILL right after the `n`-th step from now (n >= 1); 0 disarms. For crash tests only.
void kill_after(long n);
// Steps taken by this process so far.
long taken();

}  // namespace meeplecam::write_steps
