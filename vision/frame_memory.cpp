#include "vision/frame_memory.h"

#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace meeplecam::vision {

void keep_frame_buffers() {
#if defined(__GLIBC__)
    // Blocks up to 256 MB (a 5750x4000 photo is 69 MB; a 1920x1080 frame 6 MB, its top view's
    // edge integrals about 10 MB each) come from the heap; older glibc refuses more than 32 MB.
    // The heap is trimmed only when 1 GB lies free at its top.
    if (mallopt(M_MMAP_THRESHOLD, 256 * 1024 * 1024) != 1) mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

}  // namespace meeplecam::vision
