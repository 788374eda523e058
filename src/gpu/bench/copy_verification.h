// Did a copy deliver the bytes it was given? Three windows of the source (its start, middle and
// end) get a pattern of their own before the timed copies; afterwards the same windows are read
// back from the destination. A copy that is fast and wrong (P2P through an IOMMU or ACS that
// blocks the DMA, early RTX 4090 drivers, patched P2P drivers) is caught, as cuda-samples'
// simpleP2P checks its buffer after the copies for the same reason. Three windows, not the
// whole buffer: the read-back costs microseconds, and a copy that loses data loses it in whole
// pages or not at all.
#pragma once
#include <cstddef>
#include <string>

#include "core/status.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

struct DataCheck {
  bool delivered = true;
  std::string first_wrong;  // "at byte 0 (start): 0x00000000 where 0x6a5b0c1d was sent"
};

// Writes the pattern into the three windows of `source` (`bytes` long; the current context must
// own it). Synchronous: the copies queued after it see the pattern.
Status PlantCopyPattern(const CudaDriver& driver, cuda::CUdeviceptr source, size_t bytes);

// Reads the three windows of `destination` back (the current context must own it) and compares
// them with the pattern; call it after the copies have finished.
Result<DataCheck> CheckCopyPattern(const CudaDriver& driver, cuda::CUdeviceptr destination, size_t bytes);

}  // namespace labcheck::gpu
