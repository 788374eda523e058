#include "gpu/jobs/rank_comm.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace labcheck::gpu {

Result<ProcessRank> OpenProcessRank(const CudaDriver& driver, int device, int rank, int world) {
  Result<std::shared_ptr<DeviceContext>> context = DeviceContext::Open(driver, device);
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

Result<std::vector<char>> AllGatherBlocks(const CudaDriver& driver, const Nccl& nccl, ProcessRank& process,
                                          const std::vector<char>& mine, size_t block_bytes, double timeout_s) {
  if (nccl.api().ncclAllGather == nullptr) return Status::Error("this NCCL has no ncclAllGather");
  LocalRank& self = process.self();
  const size_t world = static_cast<size_t>(process.group.world_size);
  (void)self.context->MakeCurrent();
  Result<DeviceBuffer> send = DeviceBuffer::Allocate(driver, block_bytes);
  if (!send.ok()) return send.status();
  Result<DeviceBuffer> receive = DeviceBuffer::Allocate(driver, block_bytes * world);
  if (!receive.ok()) return receive.status();
  Status copied = driver.Check(driver.api().cuMemcpyHtoD(send->get(), mine.data(), block_bytes), "cuMemcpyHtoD");
  if (!copied.ok()) return copied;
  nccl::ncclResult_t r = nccl.api().ncclAllGather(send->as_pointer(), receive->as_pointer(), block_bytes, nccl::kInt8,
                                                  self.comm, self.stream.get());
  if (r != nccl::kSuccess) return Status::Error("ncclAllGather failed: " + nccl.Describe(r));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    cuda::CUresult q = driver.api().cuStreamQuery(self.stream.get());
    if (q == cuda::kSuccess) break;
    if (q != cuda::kErrorNotReady) return Status::Error("ncclAllGather: " + driver.Describe(q));
    nccl::ncclResult_t async = nccl::kSuccess;
    nccl.api().ncclCommGetAsyncError(self.comm, &async);
    if (async != nccl::kSuccess && async != nccl::kInProgress) return Status::Error("ncclAllGather: " + nccl.Describe(async));
    if (std::chrono::steady_clock::now() > deadline)
      return Status::Error("ncclAllGather made no progress for " + std::to_string(static_cast<int>(timeout_s)) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::vector<char> all(block_bytes * world);
  copied = driver.Check(driver.api().cuMemcpyDtoH(all.data(), receive->get(), all.size()), "cuMemcpyDtoH");
  if (!copied.ok()) return copied;
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
