#include "calc/allocator/bnb_quantize.h"

namespace labcheck::calc::allocator {
namespace {

constexpr double kNf4Block = 64;      // quantize_4bit blocksize
constexpr double kNestedBlock = 256;  // quantize_blockwise of the absmax
constexpr double kCodeBytes = 256 * 4;

}  // namespace

QuantizedWeight Quantize4bit(TraceBuilder& b, double n, double packed_bytes) {
  QuantizedWeight q;
  q.packed = b.Alloc(n * packed_bytes, kCompute, "bnb.quantize_4bit");
  Tensor absmax = b.Alloc(n / kNf4Block * 4, kCompute, "bnb.quantize_4bit");
  q.state.push_back(b.Alloc(n / kNf4Block, kCompute, "bnb.quantize_4bit.compress_statistics"));
  q.state.push_back(b.Alloc(n / kNf4Block / kNestedBlock * 4, kCompute, "bnb.quantize_4bit.compress_statistics"));
  q.state.push_back(b.Alloc(kCodeBytes, kCompute, "bnb.quantize_4bit.compress_statistics"));
  b.Free(absmax);
  return q;
}

}  // namespace labcheck::calc::allocator
