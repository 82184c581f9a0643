// A TCP port free on the loopback interface a moment ago (for a rendezvous store on this
// machine: local data-parallel workers, their tests and benchmarks).
#pragma once

namespace flashnerd {

// Throws flashnerd::Error when no socket can be bound.
int free_loopback_port();

}  // namespace flashnerd
