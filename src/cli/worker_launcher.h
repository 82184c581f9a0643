// `--workers N` on one machine: runs this same command line as N processes with PyTorch's
// launch contract (RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1, a free MASTER_PORT) and waits.
// When one worker fails (exits non-zero, is killed, or times out in a collective) the others
// are stopped and the error names the rank that failed first and how.
#pragma once

#include <string>

namespace flashnerd::cli {

// True when this process is a worker started by run_local_workers or by an external launcher.
bool is_worker_process();

// Returns when every worker exited 0; throws flashnerd::Error otherwise. `job` names the run in
// messages (e.g. "train --out runs/x"); `resume_hint` is appended to a failure message.
void run_local_workers(int workers, const std::string& job, const std::string& resume_hint);

}  // namespace flashnerd::cli
