#include "vision/frame_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace meeplecam::vision {

void keep_frame_buffers() {
#if defined(__GLIBC__)
    // Blocks up to 256 MB come from the heap (a 5750x4000 photo is 69 MB), and the heap is
    // trimmed only when 1 GB lies free at its top.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

}  // namespace meeplecam::vision
