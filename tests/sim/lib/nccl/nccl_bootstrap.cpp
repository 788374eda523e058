// libnccl.so.2 sim: ncclGetUniqueId and ncclCommInitRank, one rank per process on this machine.
//
// NCCL_COMM_ID=host:port makes every rank that has it derive the same unique id, rank 0 being the
// root, as NCCL does (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
// without it the id is random and travels out of band (MPI, torchrun's store). The ranks meet in a
// POSIX shared-memory segment named after the id: a header of per-rank counters and one data slot
// per rank. An all-reduce copies the rank's send buffer into its slot, waits until every rank
// has posted the same collective, sums the slots into the receive buffer and waits until every
// rank has read them (so no slot is overwritten early). A rank that never arrives makes the
// others fail ncclCommInitRank, or set ncclRemoteError as their asynchronous error, after
// "allreduce/rendezvous_timeout_s" (default 30): they report, they do not hang forever.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "nccl/nccl_internal.h"

namespace ncclsim {

constexpr int kMaxRanks = 64;
constexpr uint64_t kMagic = 0x4E56534D4E43434Cull;  // "NVSMNCCL"

// The shared segment's counters. Outside the anonymous namespace because Rendezvous, which
// nccl_internal.h names, points to it.
struct RendezvousHeader {
  std::atomic<uint64_t> magic;
  std::atomic<int> arrived[kMaxRanks];
  std::atomic<uint64_t> posted[kMaxRanks];  // collectives whose data is in the slot
  std::atomic<uint64_t> read[kMaxRanks];    // collectives whose slots this rank has summed
  // The world size the first rank brought, and the other size when a rank disagrees: NCCL's root
  // fails every rank then ("Bootstrap Root : mismatch in rank count from procs").
  std::atomic<int> world;
  std::atomic<int> mismatch;
  // Rank 0's process. The segment's name comes from the id, and NCCL_COMM_ID ids repeat from run to
  // run: a segment left by a run whose rank 0 died (killed, or aborted without ncclCommDestroy)
  // still holds its counters, so rank 0 starts it afresh and the others wait for a live rank 0.
  std::atomic<int> root_pid;
};

namespace {

bool Alive(int pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

// Rank 0 of a new run: forget whatever a dead run left in the segment.
void ClaimSegment(RendezvousHeader* h) {
  const int old = h->root_pid.load();
  if (old != getpid() && !Alive(old)) {
    for (int r = 0; r < kMaxRanks; ++r) {
      h->arrived[r].store(0);
      h->posted[r].store(0);
      h->read[r].store(0);
    }
    h->world.store(0);
    h->mismatch.store(0);
  }
  h->root_pid.store(getpid());
}

size_t SlotBytes() {
  return static_cast<size_t>(nvsim::Profile().Number("allreduce/shm_slot_mib")) << 20;
}

double RendezvousTimeout() { return nvsim::Profile().Number("allreduce/rendezvous_timeout_s"); }
// How long ncclCommInitRank waits for the others: NCCL's root waits for ranks that start late, so a
// profile may let init wait longer than a collective ("allreduce/init_timeout_s").
double InitTimeout() { return nvsim::Profile().NumberOr("allreduce/init_timeout_s", RendezvousTimeout()); }

std::string SegmentName(const ncclUniqueId& id) {
  const size_t hash = std::hash<std::string>()(std::string(id.internal, strnlen(id.internal, sizeof id.internal)));
  return "/nvsim-nccl-" + std::to_string(hash);
}

// Waits until `ready()` or the rendezvous timeout; false on timeout.
template <typename Ready>
bool WaitFor(Ready ready, double timeout_s = RendezvousTimeout()) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

}  // namespace

// The process-wide part of a communicator that spans processes.
struct Rendezvous {
  RendezvousHeader* header = nullptr;
  char* slots = nullptr;
  size_t slot_bytes = 0;
  int ranks = 0;
  uint64_t sequence = 0;
  std::string name;
};

namespace {

// One collective across processes: every rank puts `bytes` from `send` in its slot, waits until all
// have, combines the slots into its result (`combine`, called with every slot in rank order), and
// waits until all have read before the slots may be reused. False, with the comm's async error
// set, when the slot is too small or a rank never comes.
template <typename Combine>
bool Exchange(Comm* comm, const nvsim::DevicePlace& send, size_t bytes, const char* what, Rendezvous& rv,
              Combine combine) {
  if (bytes > rv.slot_bytes) {
    comm->last_error = std::string("the NCCL sim's shared-memory slot is smaller than this ") + what + " (allreduce/shm_slot_mib)";
    comm->async_error = kInvalidUsage;
    return false;
  }
  const int me = comm->rank;
  const uint64_t k = ++rv.sequence;
  nvsim::ReadBytes(send, rv.slots + static_cast<size_t>(me) * rv.slot_bytes, bytes);
  rv.header->posted[me].store(k);
  auto everyone = [&](std::atomic<uint64_t>* counters) {
    return WaitFor([&] {
      for (int r = 0; r < rv.ranks; ++r)
        if (counters[r].load() < k) return false;
      return true;
    });
  };
  if (!everyone(rv.header->posted)) {
    comm->last_error = std::string("a rank never posted this ") + what + " (rendezvous timeout)";
    comm->async_error = kRemoteError;
    return false;
  }
  std::vector<const char*> slots;
  for (int r = 0; r < rv.ranks; ++r) slots.push_back(rv.slots + static_cast<size_t>(r) * rv.slot_bytes);
  combine(slots);
  rv.header->read[me].store(k);
  if (!everyone(rv.header->read)) {
    comm->last_error = std::string("a rank left during an ") + what + " (rendezvous timeout)";
    comm->async_error = kRemoteError;
    return false;
  }
  return true;
}

}  // namespace

bool CrossProcessAllReduce(const Op& op, Rendezvous& rv) {
  const size_t bytes = op.count * 4;
  return Exchange(op.comm, op.send, bytes, "all-reduce", rv, [&](const std::vector<const char*>& slots) {
    std::vector<float> sum(op.count, 0.0f), part(op.count);
    for (const char* slot : slots) {
      std::memcpy(part.data(), slot, bytes);
      for (size_t i = 0; i < op.count; ++i) sum[i] += part[i];
    }
    const int wrong_rank = static_cast<int>(nvsim::Profile().Number("allreduce/wrong_sum_rank"));
    if (op.comm->rank == wrong_rank && op.count > 0) sum[op.count / 3] += 1.0f;
    nvsim::WriteBytes(op.receive, sum.data(), bytes);
  });
}

bool CrossProcessAllGather(Comm* comm, const nvsim::DevicePlace& send, const nvsim::DevicePlace& receive, size_t bytes,
                           Rendezvous& rv) {
  return Exchange(comm, send, bytes, "all-gather", rv, [&](const std::vector<const char*>& slots) {
    std::vector<char> all(bytes * slots.size());
    for (size_t r = 0; r < slots.size(); ++r) std::memcpy(all.data() + r * bytes, slots[r], bytes);
    nvsim::WriteBytes(receive, all.data(), all.size());
  });
}

void LeaveRendezvous(Rendezvous* rv, int rank) {
  if (rv == nullptr) return;
  if (rank == 0) shm_unlink(rv->name.c_str());
  munmap(rv->header, sizeof(RendezvousHeader) + rv->slot_bytes * rv->ranks);
  delete rv;
}

}  // namespace ncclsim

using namespace ncclsim;

NVSIM_EXPORT(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * id)) {
  if (id == nullptr) return kInvalidArgument;
  std::memset(id->internal, 0, sizeof id->internal);
  const char* comm_id = std::getenv("NCCL_COMM_ID");
  std::string text = comm_id != nullptr && comm_id[0] != '\0' ? std::string("nvsim-comm-id:") + comm_id : "";
  if (text.empty()) {
    std::random_device random;
    text = "nvsim-random:" + std::to_string(random()) + "-" + std::to_string(random()) + "-" + std::to_string(getpid());
  }
  std::strncpy(id->internal, text.c_str(), sizeof id->internal - 1);
  return kSuccess;
}

NVSIM_EXPORT(ncclResult_t, ncclCommInitRank, (Comm * *comm, int ranks, ncclUniqueId id, int rank)) {
  if (comm == nullptr || ranks <= 0 || ranks > kMaxRanks || rank < 0 || rank >= ranks) return kInvalidArgument;
  if (!DriverRunsBuild()) return kUnhandledCudaError;  // nccl_build.cpp
  nvsim::Context* current = nvsim::CurrentContext();
  if (current == nullptr) return kInvalidUsage;  // NCCL uses the current CUDA device
  auto* clique = new Clique();
  clique->ranks = 1;  // ranks in this process; the others meet in shared memory
  auto* c = new Comm();
  c->clique = clique;
  c->rank = rank;
  c->device = current->device;
  clique->comms.push_back(c);
  if (ranks > 1) {
    auto* rv = new Rendezvous();
    rv->ranks = ranks;
    rv->slot_bytes = SlotBytes();
    rv->name = SegmentName(id);
    const size_t total = sizeof(RendezvousHeader) + rv->slot_bytes * ranks;
    const int fd = shm_open(rv->name.c_str(), O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(total)) != 0) {
      if (fd >= 0) close(fd);
      delete rv;
      c->last_error = "shm_open failed for the NCCL sim's rendezvous";
      return kSystemError;
    }
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
      delete rv;
      return kSystemError;
    }
    rv->header = static_cast<RendezvousHeader*>(p);  // zero-filled by ftruncate: counters start at 0
    rv->slots = static_cast<char*>(p) + sizeof(RendezvousHeader);
    rv->header->magic.store(kMagic);
    if (rank == 0) {
      ClaimSegment(rv->header);
    } else if (!WaitFor([&] { return Alive(rv->header->root_pid.load()); }, InitTimeout())) {
      c->last_error = "rank 0 never called ncclCommInitRank (rendezvous timeout)";
      LeaveRendezvous(rv, rank);
      return kRemoteError;
    }
    int first_world = 0;
    if (!rv->header->world.compare_exchange_strong(first_world, ranks) && first_world != ranks)
      rv->header->mismatch.store(ranks);
    rv->header->arrived[rank].store(1);
    const bool all = WaitFor(
        [&] {
          if (rv->header->mismatch.load() != 0) return true;
          for (int r = 0; r < ranks; ++r)
            if (rv->header->arrived[r].load() == 0) return false;
          return true;
        },
        InitTimeout());
    clique->rendezvous = rv;
    clique->world = ranks;
    if (const int other = rv->header->mismatch.load(); other != 0) {
      c->last_error = "mismatch in rank count: " + std::to_string(rv->header->world.load()) + " and " + std::to_string(other);
      LeaveRendezvous(rv, rank);
      clique->rendezvous = nullptr;
      return kInvalidUsage;
    }
    if (!all) {
      c->last_error = "not every rank called ncclCommInitRank (rendezvous timeout)";
      LeaveRendezvous(rv, rank);
      clique->rendezvous = nullptr;
      return kRemoteError;
    }
  }
  LogInit(*clique);
  *comm = c;
  return kSuccess;
}
