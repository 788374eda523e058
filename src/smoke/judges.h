// The per-test judges of a probe's "ran" result. Each reads the fields it needs (a missing one is
// a FAIL that names it, via ProbeFields) and decides against its stated tolerance; the tolerances
// are here so that docs/smoke-tests.md and the tests can quote them.
#pragma once
#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "smoke/smoke_catalog.h"

namespace labcheck::smoke {

// DDP/FSDP2 vs one process: FP32 SGD for 5 steps; parameters are of order 0.1–1 and rounding of
// a differently ordered gradient sum moves them by ~1e-8, a real fault by far more.
inline constexpr double kDistMaxAbsDiff = 1e-5;
// BF16 attention vs FP32 attention from the same BF16 inputs: outputs are of order 0.1–1 and BF16
// keeps 8 significant bits (relative step 2^-8 ≈ 0.004).
inline constexpr double kAttentionMaxAbsErr = 2e-2;
// The Triton kernel vs torch, both FP32 on values of order 1–10.
inline constexpr double kTritonMaxAbsErr = 1e-4;
// Compiled vs eager, FP32, relative to the largest output (kernels may sum in another order).
inline constexpr double kCompileMaxRelErr = 1e-3;

CheckResult JudgeDistributed(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeLlamaTrain(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeHfLlama(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeLora(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeQlora(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeFlashAttention(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeTriton(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeTorchCompile(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeVllm(const SmokeTest& test, const nlohmann::json& result);
CheckResult JudgeUnsloth(const SmokeTest& test, const nlohmann::json& result);

}  // namespace labcheck::smoke
