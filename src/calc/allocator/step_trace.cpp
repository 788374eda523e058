#include "calc/allocator/step_trace.h"

#include <algorithm>

namespace labcheck::calc::allocator {

TraceBuilder::TraceBuilder(std::string framework) { trace_.framework = std::move(framework); }

uint16_t TraceBuilder::SourceIndex(std::string_view key) {
  const auto found = source_index_.find(key);
  if (found != source_index_.end()) return found->second;
  const auto index = static_cast<uint16_t>(trace_.sources.size());
  trace_.sources.emplace_back(key);
  source_index_.emplace(std::string(key), index);
  return index;
}

TraceBuilder::Tensor TraceBuilder::Alloc(uint64_t bytes, StreamId stream, std::string_view source) {
  const Tensor t = trace_.tensors++;
  stream_of_.push_back(stream);
  source_of_.push_back(SourceIndex(source));
  trace_.events.push_back({TraceOp::Alloc, stream, t, source_of_.back(), std::max<uint64_t>(bytes, 1)});
  busy_.insert(stream);
  return t;
}

void TraceBuilder::Free(Tensor& t, std::string_view source) {
  if (t == kNone) return;
  const auto uses = uses_.find(t);
  std::vector<StreamId> idle;
  if (uses != uses_.end()) {
    for (StreamId s : uses->second) {
      ++events_[s];  // the allocator records one event per use
      if (!busy_.contains(s)) idle.push_back(s);
    }
    uses_.erase(uses);
  }
  trace_.events.push_back({TraceOp::Free, stream_of_[t], t, source.empty() ? source_of_[t] : SourceIndex(source), 0});
  // An event recorded on a stream with nothing queued since the device was last synchronised has
  // already completed when the allocator next queries it (process_events' cudaEventQuery).
  for (StreamId s : idle) trace_.events.push_back({TraceOp::Synchronize, s, 0, SourceIndex("allocator.process_events"), events_[s]});
  t = kNone;
}

void TraceBuilder::RecordStream(Tensor t, StreamId stream, std::string_view source) {
  if (t == kNone || stream == stream_of_[t]) return;
  std::vector<StreamId>& uses = uses_[t];
  if (std::find(uses.begin(), uses.end(), stream) != uses.end()) return;
  uses.push_back(stream);
  trace_.events.push_back({TraceOp::RecordStream, stream, t, SourceIndex(source), 0});
}

uint64_t TraceBuilder::Marker(StreamId stream, std::string_view source) {
  trace_.events.push_back({TraceOp::Marker, stream, 0, SourceIndex(source), 0});
  return ++events_[stream];
}

void TraceBuilder::Synchronize(StreamId stream, uint64_t marker, std::string_view source) {
  trace_.events.push_back({TraceOp::Synchronize, stream, 0, SourceIndex(source), marker});
}

void TraceBuilder::SynchronizeAll(std::string_view source) {
  trace_.events.push_back({TraceOp::SynchronizeAll, kCompute, 0, SourceIndex(source), 0});
  busy_.clear();
}
void TraceBuilder::EmptyCache(std::string_view source) { trace_.events.push_back({TraceOp::EmptyCache, kCompute, 0, SourceIndex(source), 0}); }
void TraceBuilder::ResetPeak(std::string_view source) { trace_.events.push_back({TraceOp::ResetPeak, kCompute, 0, SourceIndex(source), 0}); }

void TraceBuilder::Stage(std::string name) {
  trace_.events.push_back({TraceOp::Stage, kCompute, 0, 0, trace_.stages.size()});
  trace_.stages.push_back(std::move(name));
}

Trace TraceBuilder::Finish() && { return std::move(trace_); }

}  // namespace labcheck::calc::allocator
