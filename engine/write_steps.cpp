#include "engine/write_steps.h"

#include <atomic>
#include <csignal>

namespace meeplecam::write_steps {
namespace {

std::atomic<long> g_taken{0};
std::atomic<long> g_kill_at{0};  // the step count that kills; 0: none armed

}  // namespace

void step() {
    const long now = ++g_taken;
    const long armed = g_kill_at.load();
    if (armed != 0 && now >= armed) std::raise(SIGKILL);
}

void kill_after(long n) { g_kill_at.store(n <= 0 ? 0 : g_taken.load() + n); }

long taken() { return g_taken.load(); }

}  // namespace meeplecam::write_steps
