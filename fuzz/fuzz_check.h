// A harness-side check: a property that must hold for every input, else the fuzzer reports a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_REQUIRE(cond, what)                                                              \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "fuzz property failed: %s (%s) at %s:%d\n", (what), #cond,   \
                         __FILE__, __LINE__);                                                 \
            std::abort();                                                                     \
        }                                                                                     \
    } while (false)
