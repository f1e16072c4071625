// Whether the test runs in the ASan + UBSan build (scripts/test.sh --sanitize).
//
// Tests that compare a feature on and off over many renders (an ablation: "with X, N of 8 boards;
// without X, fewer") run only the "on" arm there: the sanitizers look for memory errors and
// undefined behaviour on the code the arms share, and each arm costs minutes under them (the
// steep-view test 147 s). The plain build checks the comparison.
#pragma once

namespace meeplecam::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace meeplecam::test
