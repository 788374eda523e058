// The allocation events of model load and a few training steps, in the order the framework issues
// them, each with its size, its CUDA stream and the framework line that issues it (a key into
// data/step_trace_sources.json, which names the repository, file, commit and function). The
// allocator model (caching_allocator.h) replays them (replay.h). The builders are in
// step_trace_*.cpp; TraceBuilder only records.
//
// The GPU's progress is what the allocator sees through events: a free of a block used on another
// stream waits for that stream. The trace says explicitly when the CPU knows a stream has reached
// a point (FSDP's rate limiter synchronising on a free event, loss.item(), a stream wait); until
// then the GPU is taken to be behind the CPU, as in a run that keeps it busy.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "calc/allocator/caching_allocator.h"

namespace labcheck::calc::allocator {

// The CUDA streams a training step allocates on.
enum TraceStream : StreamId {
  kCompute = 0,         // the default (current) stream: the model's forward and backward
  kUnshard = 1,         // FSDP1 _unshard_stream: all-gather outputs
  kPostBackward = 2,    // FSDP1 _post_backward_stream: reduce-scatter outputs
  kPreUnshard = 3,      // FSDP1 _pre_unshard_stream: shard copies from CPU RAM (offload)
  kAllGatherCopyIn = 4, // FSDP2 all_gather_copy_in_stream: all-gather outputs and shard copies
  kReduceScatter = 5,   // FSDP2 reduce_scatter_stream
};

enum class TraceOp : uint8_t {
  Alloc,         // tensor = malloc(bytes) on stream
  Free,          // tensor freed (waits for the streams recorded on it)
  RecordStream,  // tensor.record_stream(stream)
  Marker,        // an event recorded on stream (its number is the stream's next)
  Synchronize,   // the CPU knows `stream` has completed everything up to event `bytes`
  SynchronizeAll,
  EmptyCache,    // torch.cuda.empty_cache()
  ResetPeak,     // torch.cuda.reset_peak_memory_stats()
  Stage,         // what the step is doing from here on (`bytes` indexes Trace::stages)
};

struct TraceEvent {
  TraceOp op = TraceOp::Alloc;
  StreamId stream = kCompute;
  uint32_t tensor = 0;
  uint16_t source = 0;  // index into Trace::sources
  uint64_t bytes = 0;
};

struct Trace {
  std::vector<TraceEvent> events;
  std::vector<std::string> stages;
  std::vector<std::string> sources;  // keys of data/step_trace_sources.json
  uint32_t tensors = 0;
  std::string framework;             // "fsdp_qlora train.py (FSDP1)", ...
};

class TraceBuilder {
 public:
  using Tensor = uint32_t;
  static constexpr Tensor kNone = UINT32_MAX;

  explicit TraceBuilder(std::string framework);

  Tensor Alloc(uint64_t bytes, StreamId stream, std::string_view source);
  Tensor Alloc(double bytes, StreamId stream, std::string_view source) { return Alloc(static_cast<uint64_t>(bytes), stream, source); }
  // Frees `t` (kNone is ignored, so optional tensors need no branches at the call site). A free
  // without a source of its own is issued where its allocation's source says the tensor dies.
  void Free(Tensor& t, std::string_view source = {});
  void RecordStream(Tensor t, StreamId stream, std::string_view source);
  // An event recorded on `stream` now; Synchronize(stream, it) later says the GPU got there.
  uint64_t Marker(StreamId stream, std::string_view source);
  void Synchronize(StreamId stream, uint64_t marker, std::string_view source);
  void SynchronizeAll(std::string_view source);
  void EmptyCache(std::string_view source);
  void ResetPeak(std::string_view source);
  void Stage(std::string name);

  Trace Finish() &&;

 private:
  uint16_t SourceIndex(std::string_view key);

  Trace trace_;
  std::map<std::string, uint16_t, std::less<>> source_index_;
  // What the allocator will count: each stream's event sequence, and the streams recorded on each
  // live tensor (a free with uses records one event per use).
  std::map<StreamId, uint64_t> events_;
  std::map<Tensor, std::vector<StreamId>> uses_;
  // Streams given work since the device was last synchronised (an allocation on them: the kernel
  // that writes it; record_stream only notes a use made earlier): the GPU runs behind the CPU, so
  // their events complete only at a later synchronisation.
  std::set<StreamId> busy_;
  std::vector<StreamId> stream_of_;
  std::vector<uint16_t> source_of_;
};

using Tensor = TraceBuilder::Tensor;
inline constexpr Tensor kNone = TraceBuilder::kNone;

}  // namespace labcheck::calc::allocator
