#include "gpu/memtest/memtest_errors.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "core/units.h"
#include "gpu/bench/device_resources.h"
#include "gpu/memtest/memtest_kernels_ptx.h"

namespace labcheck::gpu::memtest {

namespace {

using nlohmann::json;

std::string RecordHex(uint64_t value) { return fmt::format("0x{:016x}", value); }

uint64_t RecordFromHex(const json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (!value.is_string()) return 0;
  return std::strtoull(value.get<std::string>().c_str(), nullptr, 16);
}

std::vector<int> WrongBitList(uint64_t bits) {
  std::vector<int> out;
  for (int b = 0; b < 64; ++b)
    if ((bits >> b) & 1) out.push_back(b);
  return out;
}

uint64_t AddressDistance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

}  // namespace

void ErrorTally::Add(const ErrorTally& other) {
  count += other.count;
  for (size_t b = 0; b < bits.size(); ++b) bits[b] += other.bits[b];
  bits_capped = bits_capped || other.bits_capped;
  for (const WordError& e : other.records)
    if (records.size() < kKeptRecords) records.push_back(e);
}

Result<ErrorTally> ReadAndResetErrors(const CudaDriver& driver, cuda::CUdeviceptr buffer) {
  ErrorTally tally;
  Status status = driver.Check(driver.api().cuMemcpyDtoH(&tally.count, buffer + kErrorCountOffset, 8), "cuMemcpyDtoH");
  if (!status.ok() || tally.count == 0) return status.ok() ? Result<ErrorTally>(tally) : Result<ErrorTally>(status);
  status = driver.Check(driver.api().cuMemcpyDtoH(tally.bits.data(), buffer + kHistogramOffset, 64 * 8), "cuMemcpyDtoH");
  const uint64_t kept = std::min<uint64_t>(tally.count, kMaxRecords);
  std::vector<uint64_t> raw(kept * 4);
  if (status.ok() && kept > 0)
    status = driver.Check(driver.api().cuMemcpyDtoH(raw.data(), buffer + kRecordsOffset, kept * kRecordBytes), "cuMemcpyDtoH");
  // The count and the histogram back to zero; the records need not be (the count says how many).
  if (status.ok())
    status = driver.Check(driver.api().cuMemsetD32(buffer, 0, kRecordsOffset / 4), "cuMemsetD32");
  if (status.ok()) status = WaitForSetup(driver);  // the memset runs on the legacy stream
  if (!status.ok()) return status;
  tally.bits_capped = tally.count > kHistogramCap;
  for (uint64_t i = 0; i < kept; ++i) tally.records.push_back({raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3]});
  std::sort(tally.records.begin(), tally.records.end(),
            [](const WordError& a, const WordError& b) { return a.address < b.address; });
  return tally;
}

uint64_t AddressStride(const std::vector<WordError>& records) {
  uint64_t stride = 0;
  for (size_t i = 1; i < records.size(); ++i) stride = std::gcd(stride, AddressDistance(records[i].address, records[0].address));
  return stride;
}

std::vector<BitStride> BitStrides(const ErrorTally& tally) {
  std::vector<BitStride> out;
  for (int b = 0; b < 64; ++b) {
    if (tally.bits[b] == 0) continue;
    std::vector<WordError> with_bit;
    for (const WordError& e : tally.records)
      if ((e.Bits() >> b) & 1) with_bit.push_back(e);
    out.push_back({b, tally.bits[b], AddressStride(with_bit)});
  }
  std::stable_sort(out.begin(), out.end(), [](const BitStride& a, const BitStride& b) { return a.count > b.count; });
  return out;
}

std::optional<uint64_t> LogicalOffset(const std::vector<TestedRange>& ranges, uint64_t address) {
  for (const TestedRange& r : ranges)
    if (address >= r.address && address - r.address < r.bytes) return r.logical + (address - r.address);
  return std::nullopt;
}

std::optional<Aliasing> FindAliasing(const std::vector<WordError>& records, const std::vector<TestedRange>& ranges) {
  // The own-address word at A holds A ^ x (x = 0, or ~0 for the complement step), so a word
  // written through B reads B ^ x: B = read ^ expected ^ A.
  std::map<uint64_t, Aliasing> by_distance;
  for (const WordError& e : records) {
    const uint64_t partner = e.read ^ e.expected ^ e.address;
    if (partner == e.address || partner % 8 != 0) continue;
    const std::optional<uint64_t> at = LogicalOffset(ranges, e.address), other = LogicalOffset(ranges, partner);
    if (!at || !other) continue;
    const uint64_t distance = AddressDistance(*at, *other);
    Aliasing& a = by_distance[distance];
    const uint64_t upper = std::max(*at, *other);
    a.distance = distance;
    a.from_offset = a.pairs == 0 ? upper : std::min(a.from_offset, upper);
    ++a.pairs;
  }
  std::optional<Aliasing> best;
  for (const auto& [distance, a] : by_distance)
    if (!best || a.pairs > best->pairs) best = a;
  return best;
}

json TallyJson(const ErrorTally& tally, const std::vector<TestedRange>& ranges) {
  json records = json::array();
  for (const WordError& e : tally.records) {
    json r = {{"address", RecordHex(e.address)}, {"expected", RecordHex(e.expected)}, {"read", RecordHex(e.read)},
              {"reread", RecordHex(e.reread)}, {"bits", WrongBitList(e.Bits())}};
    if (std::optional<uint64_t> offset = LogicalOffset(ranges, e.address)) {
      r["offset"] = *offset;
      r["offset_gib"] = static_cast<double>(*offset) / static_cast<double>(kBytesPerGiB);
    }
    records.push_back(r);
  }
  json bits = json::object();
  for (int b = 0; b < 64; ++b)
    if (tally.bits[b] > 0) bits[std::to_string(b)] = tally.bits[b];
  json strides = json::array();
  for (const BitStride& s : BitStrides(tally)) strides.push_back({{"bit", s.bit}, {"count", s.count}, {"stride", s.stride}});
  return {{"count", tally.count},        {"bits", bits},
          {"bits_capped", tally.bits_capped}, {"records", records},
          {"stride", AddressStride(tally.records)}, {"bit_strides", strides}};
}

ErrorTally TallyFromJson(const json& j) {
  ErrorTally tally;
  if (!j.is_object()) return tally;
  tally.count = j.value("count", uint64_t{0});
  tally.bits_capped = j.value("bits_capped", false);
  if (j.contains("bits") && j["bits"].is_object())
    for (const auto& [bit, count] : j["bits"].items()) {
      const int b = std::atoi(bit.c_str());
      if (b >= 0 && b < 64 && count.is_number()) tally.bits[b] = count.get<uint64_t>();
    }
  if (j.contains("records") && j["records"].is_array())
    for (const json& r : j["records"])
      tally.records.push_back({RecordFromHex(r.value("address", json())), RecordFromHex(r.value("expected", json())),
                               RecordFromHex(r.value("read", json())), RecordFromHex(r.value("reread", json()))});
  return tally;
}

}  // namespace labcheck::gpu::memtest
