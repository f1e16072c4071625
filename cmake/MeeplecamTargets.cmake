# One helper declares a library layer, one declares a test. Layers may only link the
# layers and packages listed as allowed for them, which keeps the dependency rules
# (engine sees neither Qt nor OpenCV; vision/calibration do not see Qt) enforced.

set(MEEPLECAM_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 reports false positives on std::string concatenation at -O3 (GCC PR 105329).
  list(APPEND MEEPLECAM_WARNINGS -Wno-restrict)
  if(MEEPLECAM_SANITIZE)
    # With ASan instrumentation GCC 12 reports maybe-uninitialized inside <regex>'s std::function
    # moves (false positives: the GCC manual warns sanitizers make this warning unreliable).
    list(APPEND MEEPLECAM_WARNINGS -Wno-maybe-uninitialized)
  endif()
endif()

# meeplecam_library(NAME SOURCES ... DEPS ... ALLOWED ...)
function(meeplecam_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;ALLOWED" ${ARGN})
  foreach(dep IN LISTS ARG_DEPS)
    if(NOT dep IN_LIST ARG_ALLOWED)
      message(FATAL_ERROR "layer '${name}' may not depend on '${dep}' (allowed: ${ARG_ALLOWED})")
    endif()
  endforeach()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  target_compile_options(${name} PRIVATE ${MEEPLECAM_WARNINGS})
  target_compile_features(${name} PUBLIC cxx_std_20)
endfunction()

# meeplecam_test(NAME SOURCES ... DEPS ...) — a Catch2 test executable registered with ctest.
function(meeplecam_test name)
  cmake_parse_arguments(ARG "" "COST" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  # Test files repeat small helpers (golden(), apply(), error_of()) in anonymous namespaces:
  # they stay out of unity builds (build-asan), each file its own translation unit.
  set_target_properties(${name} PROPERTIES UNITY_BUILD OFF)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} Catch2::Catch2WithMain)
  target_compile_options(${name} PRIVATE ${MEEPLECAM_WARNINGS})
  if(MEEPLECAM_SANITIZE AND NOT "soak" IN_LIST ARG_LABELS AND NOT "slow" IN_LIST ARG_LABELS)
    # build-asan: the test files themselves at -O0 (the layers they test stay -O1). Catch2's
    # assertion code is most of their compile time and -O1 doubles it (engine/castles_test.cpp
    # 11.2 s CPU at -O0, 21.1 s at -O1); ASan and UBSan check -O0 code just as well. Not the
    # soak and slow tests: their own loops are the run time (300 Ferries games under the
    # sanitizers: 8.9 s CPU with soak_test.cpp at -O0, 5.0 s at -O1).
    target_compile_options(${name} PRIVATE -O0)
  endif()
  target_compile_definitions(${name} PRIVATE
    MEEPLECAM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    MEEPLECAM_BINARY_DIR="${PROJECT_BINARY_DIR}")
  # --warn NoTests: a ctest entry that matches no test case fails instead of passing empty
  # (catch_discover_tests cuts names at ';', so such a name would run nothing: names avoid ';').
  # COST: ctest starts costlier tests first when it runs them in parallel, so a clean clone
  # (no timings from an earlier run) does not end on one long test with the other job idle.
  if(NOT DEFINED ARG_COST)
    set(ARG_COST 0)
  endif()
  # LABELS last: catch_discover_tests flattens a list of labels into the property list, so
  # only the first label reaches ctest (the rest would eat the properties after them).
  # build-asan leaves out the test cases tagged [scene] (each reads full rendered scenes: 78 of
  # the 160 vision tests, 91 % of their time, 2-3x slower under the sanitizers) unless
  # MEEPLECAM_SANITIZE_SCENES is on: the plain build checks what they measure, and the sanitizers
  # still see every reader stage through the untagged sweep (tests/vision/sanitizer_sweep_test.cpp)
  # and the session's footage tests. docs/testing.md, "CI cost".
  set(spec)
  if(MEEPLECAM_SANITIZE AND NOT MEEPLECAM_SANITIZE_SCENES)
    # "~[.]" too: with any spec Catch lists its hidden cases, such as the calibration accuracy
    # sweep (4 min under the sanitizers), which no ctest run should register.
    # "~[plain-only]": cases that under the sanitizers' shorter soaks would repeat another case's
    # work (the whole-game footage cases of seeds whose shorter games run there too).
    set(spec TEST_SPEC "~[scene]~[.]~[plain-only]")
  endif()
  catch_discover_tests(${name} ${spec} PROPERTIES COST ${ARG_COST} LABELS "${ARG_LABELS}"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    EXTRA_ARGS --warn NoTests)
endfunction()
