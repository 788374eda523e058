#include "gpu/jobs/rank_comm.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace labcheck::gpu {

Result<ProcessRank> OpenProcessRank(GpuRuntime& runtime, int device, int rank, int world) {
  const CudaDriver& driver = runtime.driver();
  Result<std::shared_ptr<DeviceContext>> context = runtime.Context(device);
  if (!context.ok()) return context.status();
  ProcessRank process;
  process.group.world_size = world;
  LocalRank local;
  local.rank = rank;
  local.context = *context;
  Status current = local.context->MakeCurrent();
  if (!current.ok()) return current;
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  local.stream = std::move(stream).value();
  process.group.local.push_back(std::move(local));
  return process;
}

Status JoinCommunicator(const Nccl& nccl, ProcessRank& process, const nccl::ncclUniqueId& id, int rank, int world) {
  (void)process.self().context->MakeCurrent();
  nccl::ncclComm_t comm = nullptr;
  nccl::ncclResult_t r = nccl.api().ncclCommInitRank(&comm, world, id, rank);
  if (r != nccl::kSuccess) return Status::Error("ncclCommInitRank failed: " + nccl.Describe(r));
  process.self().comm = comm;
  process.self().rank = rank;
  process.group.world_size = world;
  return Status::Ok();
}

namespace {

// Waits for the rank's stream without blocking in the driver, watching NCCL's asynchronous error.
Status WaitForStream(const CudaDriver& driver, const Nccl& nccl, LocalRank& self, double timeout_s, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    cuda::CUresult q = driver.api().cuStreamQuery(self.stream.get());
    if (q == cuda::kSuccess) return Status::Ok();
    if (q != cuda::kErrorNotReady) return Status::Error(std::string(what) + ": " + driver.Describe(q));
    nccl::ncclResult_t async = nccl::kSuccess;
    nccl.api().ncclCommGetAsyncError(self.comm, &async);
    if (async != nccl::kSuccess && async != nccl::kInProgress) return Status::Error(std::string(what) + ": " + nccl.Describe(async));
    if (std::chrono::steady_clock::now() > deadline)
      return Status::Error(std::string(what) + " made no progress for " + std::to_string(static_cast<int>(timeout_s)) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

Result<std::vector<char>> AllGatherBlocks(const CudaDriver& driver, const Nccl& nccl, ProcessRank& process,
                                          const std::vector<char>& mine, size_t block_bytes, double timeout_s) {
  LocalRank& self = process.self();
  const size_t world = static_cast<size_t>(process.group.world_size);
  const bool gather = nccl.api().ncclAllGather != nullptr;
  // Without ncclAllGather (an NCCL that lacks it), the same result from an all-reduce: every rank
  // puts its bytes, as float32 values 0…255, in its own slot of a zeroed buffer, and the sum is the
  // gathered blocks (each slot has one non-zero contributor, and small integers are exact).
  const size_t send_bytes = gather ? block_bytes : block_bytes * world * sizeof(float);
  const size_t receive_bytes = gather ? block_bytes * world : send_bytes;
  std::vector<char> host_send;
  if (gather) {
    host_send = mine;
  } else {
    std::vector<float> slots(block_bytes * world, 0.0f);
    for (size_t i = 0; i < block_bytes; ++i)
      slots[static_cast<size_t>(self.rank) * block_bytes + i] = static_cast<float>(static_cast<unsigned char>(mine[i]));
    host_send.resize(send_bytes);
    std::memcpy(host_send.data(), slots.data(), send_bytes);
  }
  (void)self.context->MakeCurrent();
  Result<DeviceBuffer> send = DeviceBuffer::Allocate(driver, send_bytes);
  if (!send.ok()) return send.status();
  Result<DeviceBuffer> receive = DeviceBuffer::Allocate(driver, receive_bytes);
  if (!receive.ok()) return receive.status();
  // On the collective's own stream. A synchronous cuMemcpyHtoD from pageable memory returns once
  // the bytes are staged; its DMA is ordered on the legacy stream, which this non-blocking stream
  // does not wait for, so the gather could send stale bytes. The asynchronous copy also stages
  // pageable memory before it returns (host_send may go), and the stream orders it before the
  // gather: no host wait at all, where cuCtxSynchronize would wait for the whole context.
  Status copied = driver.Check(driver.api().cuMemcpyHtoDAsync(send->get(), host_send.data(), send_bytes, self.stream.get()),
                               "cuMemcpyHtoDAsync");
  if (!copied.ok()) return copied;
  nccl::ncclResult_t r =
      gather ? nccl.api().ncclAllGather(send->as_pointer(), receive->as_pointer(), block_bytes, nccl::kInt8, self.comm, self.stream.get())
             : nccl.api().ncclAllReduce(send->as_pointer(), receive->as_pointer(), block_bytes * world, nccl::kFloat32, nccl::kSum,
                                        self.comm, self.stream.get());
  const char* what = gather ? "ncclAllGather" : "ncclAllReduce (gathering blocks)";
  if (r != nccl::kSuccess) return Status::Error(std::string(what) + " failed: " + nccl.Describe(r));
  Status waited = WaitForStream(driver, nccl, self, timeout_s, what);
  if (!waited.ok()) {
    // Before the buffers it uses are freed (cuMemFree may wait for the device).
    nccl.api().ncclCommAbort(self.comm);
    self.comm = nullptr;
    return waited;
  }
  std::vector<char> received(receive_bytes);
  copied = driver.Check(driver.api().cuMemcpyDtoH(received.data(), receive->get(), receive_bytes), "cuMemcpyDtoH");
  if (!copied.ok()) return copied;
  if (gather) return received;
  std::vector<float> sums(block_bytes * world);
  std::memcpy(sums.data(), received.data(), receive_bytes);
  std::vector<char> all(block_bytes * world);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<char>(static_cast<unsigned char>(sums[i]));
  return all;
}

Result<std::vector<char>> TextBlock(const std::string& text, size_t block_bytes) {
  if (text.size() >= block_bytes)
    return Status::Error("block of " + std::to_string(text.size()) + " bytes does not fit in " + std::to_string(block_bytes));
  std::vector<char> block(block_bytes, '\0');
  std::memcpy(block.data(), text.data(), text.size());
  return block;
}

std::string BlockText(const std::vector<char>& blocks, size_t index, size_t block_bytes) {
  const char* begin = blocks.data() + index * block_bytes;
  return std::string(begin, strnlen(begin, block_bytes));
}

}  // namespace labcheck::gpu
