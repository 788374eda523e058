// bitsandbytes' quantize_4bit with compress_statistics (double quantisation), as it allocates on
// the GPU (bitsandbytes/functional.py): the packed 4-bit codes, an FP32 absmax per block of 64
// weights, then those absmax values quantised to 8 bits in blocks of 256 with an FP32 absmax each
// and the 256-entry FP32 dynamic code; the FP32 absmax is dropped. The codes and the 8-bit state
// are the weight's (the QuantState stays where it was made).
#pragma once
#include <vector>

#include "calc/allocator/step_trace.h"

namespace labcheck::calc::allocator {

struct QuantizedWeight {
  Tensor packed = kNone;
  std::vector<Tensor> state;  // absmax (8-bit), nested absmax, code
};

// Quantises an `elements`-weight BF16 tensor already on the GPU.
QuantizedWeight Quantize4bit(TraceBuilder& b, double elements, double packed_bytes_per_weight);

}  // namespace labcheck::calc::allocator
