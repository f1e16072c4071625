// Process memory tuned for reading frame after frame.
//
// The reader allocates a few dozen images of 1-20 MB per frame (warps, edge images and their
// integrals). glibc serves blocks that large with fresh mmap()s and returns them on free(), so
// every frame pays the kernel to zero and map its working set again: measured on the
// 2-core development machine, about 15 % of a 1920x1080 reading's CPU time (bench/vision,
// medium: 296 -> 250 ms CPU per frame). keep_frame_buffers() keeps such blocks in the heap
// once freed, so the next frame reuses them: the process keeps its peak working set
// instead of giving it back between frames.
#pragma once

namespace meeplecam::vision {

// Call once at program start (before the first frame), from main(): it is process-wide.
// Without glibc it does nothing.
void keep_frame_buffers();

}  // namespace meeplecam::vision
