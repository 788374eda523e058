// env.compat: the data file has a source per fact and rule, and every rule, driven by fake Python
// facts and a fake driver, yields its verdict, what breaks and the one command that fixes it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compat/compat_data.h"
#include "compat/compat_rules.h"

namespace labcheck::compat {
namespace {

const CompatData& Data() { return EmbeddedCompatData(); }

TEST(CompatData, EveryFactAndRuleHasAUrlAndADate) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/data/compat.json");
  std::stringstream text;
  text << in.rdbuf();
  Result<CompatData> parsed = ParseCompatData(text.str());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Status valid = Validate(*parsed);
  EXPECT_TRUE(valid.ok()) << valid.message();
  EXPECT_FALSE(Data().rules.empty());  // the embedded copy parses too
}

TEST(CompatData, ValidateCatchesAFactWithoutASource) {
  CompatData d = Data();
  d.features[0].source.checked.clear();
  EXPECT_FALSE(Validate(d).ok());
  d = Data();
  d.rules.back().sources.clear();
  Status s = Validate(d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(d.rules.back().id), std::string::npos);
}

TEST(CompatData, EveryRuleTheCodeUsesIsInTheDataFile) {
  for (const char* id : {"torch_cuda_vs_driver", "torch_without_cuda", "torch_cuda_minor_compat", "torch_arch_list", "feature_bf16", "feature_fp8",
                         "feature_flash_attn_2", "feature_flash_attn_3", "package_requires_torch", "extension_import",
                         "triton_pin", "nccl_versions"})
    EXPECT_NE(Data().FindRule(id), nullptr) << id;
}

PythonSide Torch(const std::string& version, const std::string& cuda, std::vector<std::string> archs) {
  PythonSide p;
  p.torch_version = version;
  p.torch_cuda = cuda;
  p.arch_list = archs;
  p.packages["torch"] = PackageFacts{version, {}};
  return p;
}

DriverSide Driver(const std::string& cuda, std::vector<GpuFacts> gpus) {
  DriverSide d;
  d.driver_version = "550.54.14";
  d.driver_cuda = cuda;
  d.gpus = std::move(gpus);
  return d;
}

const GpuFacts kRtx4090{0, "NVIDIA GeForce RTX 4090", 89};
const GpuFacts kRtx5090{0, "NVIDIA GeForce RTX 5090", 120};
const GpuFacts kH100{0, "NVIDIA H100 80GB HBM3", 90};
const GpuFacts kT4{0, "Tesla T4", 75};

std::vector<CompatLine> Lines(const std::string& rule, const CompatFacts& f) {
  std::vector<CompatLine> out;
  for (const CompatLine& l : JudgeCompat(f, Data()))
    if (l.rule == rule) out.push_back(l);
  return out;
}

TEST(CompatRules, TorchForANewerCudaMajorThanTheDriverFailsWithAWheelThatFits) {
  CompatFacts f{Torch("2.9.0+cu130", "13.0", {"sm_80", "sm_90", "sm_120"}), "", Driver("12.4", {kRtx4090})};
  auto lines = Lines("torch_cuda_vs_driver", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Fail);
  EXPECT_NE(lines[0].breaks.en.find("too old"), std::string::npos);
  EXPECT_EQ(lines[0].fix.en, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128");
  EXPECT_NE(lines[0].facts.en.find("CUDA 13.0 needs driver ≥ 580.65.06"), std::string::npos) << lines[0].facts.en;
  EXPECT_EQ(lines[0].facts.en.find("cuda-compat"), std::string::npos);  // GeForce: no forward compatibility
  CheckResult r = AssessCompat(f, Data());
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.hint.en, lines[0].fix.en);
}

// A CPU-only torch beside a driver that has cards (issue 56): a WARN whose fix is the CUDA wheel
// this driver runs, not an N/A beside "everything fits". Without a card there is nothing to fix.
TEST(CompatRules, ACpuOnlyTorchBesideTheDriversCardsWarnsWithTheWheel) {
  PythonSide cpu = Torch("2.5.1+cpu", "", {});
  cpu.torch_cuda.reset();
  cpu.arch_list.reset();
  CompatFacts f{cpu, "", Driver("12.4", {kRtx4090})};
  auto lines = Lines("torch_without_cuda", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Warn);
  EXPECT_EQ(lines[0].fix.en, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128");  // as WheelFor picks for 12.4
  CheckResult r = AssessCompat(f, Data());
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("torch.cuda.is_available() returns False"), std::string::npos) << r.reason.en;

  CompatFacts none{cpu, "", std::nullopt};
  EXPECT_TRUE(Lines("torch_without_cuda", none).empty());
  // The cards NVML lists while CUDA_VISIBLE_DEVICES hides them from CUDA count too.
  none.driver_gpu_count = 4;
  EXPECT_EQ(Lines("torch_without_cuda", none).size(), 1u);
}

// "Everything fits" only where the torch rules were judged; otherwise the summary names what was
// not and why (torch not installed in the interpreter).
TEST(CompatRules, EverythingFitsOnlyWhereTheTorchRulesWereJudged) {
  CompatFacts f{std::nullopt, "", Driver("12.4", {kRtx4090})};
  f.torch_missing = T("PyTorch не установлен в интерпретаторе /usr/bin/python3", "torch is not installed in the interpreter /usr/bin/python3");
  CheckResult r = AssessCompat(f, Data());
  EXPECT_EQ(r.summary.en.find("everything fits"), std::string::npos) << r.summary.en;
  EXPECT_NE(r.summary.en.find("not judged"), std::string::npos) << r.summary.en;
  EXPECT_NE(r.summary.en.find("torch is not installed in the interpreter /usr/bin/python3"), std::string::npos) << r.summary.en;
  CompatFacts judged{Torch("2.5.1+cu124", "12.4", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  EXPECT_EQ(AssessCompat(judged, Data()).summary.en, "everything fits");
}

// Nothing to compare: the causes in the report's words, not "neither an NVIDIA driver nor torch
// with CUDA" where NVML lists cards that a variable hides.
TEST(CompatRules, NothingToCompareNamesTheRealCauses) {
  CompatFacts f;
  f.torch_missing = T("PyTorch не установлен", "torch is not installed in the interpreter /p");
  f.driver_gpu_count = 4;
  f.no_cuda_card = T("скрывает", "CUDA_VISIBLE_DEVICES=\"\" hides all the driver's 4 GPUs");
  CheckResult r = AssessCompat(f, Data());
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_EQ(r.reason.en.find("neither"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("torch is not installed"), std::string::npos) << r.reason.en;
}

TEST(CompatRules, ADataCenterCardGetsTheForwardCompatibilityException) {
  CompatFacts f{Torch("2.9.0+cu130", "13.0", {"sm_90"}), "", Driver("12.4", {kH100})};
  auto lines = Lines("torch_cuda_vs_driver", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].facts.en.find("cuda-compat-13-0"), std::string::npos) << lines[0].facts.en;
}

TEST(CompatRules, ANewerMinorVersionRunsThroughMinorCompatibility) {
  CompatFacts f{Torch("2.7.1+cu128", "12.8", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  auto lines = Lines("torch_cuda_minor_compat", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Pass);
  EXPECT_NE(lines[0].fix.en.find("570.26"), std::string::npos);
  EXPECT_TRUE(Lines("torch_cuda_vs_driver", f).empty());
}

TEST(CompatRules, ABlackwellCardWithAWheelWithoutSm120Fails) {
  CompatFacts f{Torch("2.5.1+cu124", "12.4", {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}), "",
                Driver("12.8", {kRtx5090})};
  auto lines = Lines("torch_arch_list", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Fail);
  EXPECT_NE(lines[0].breaks.en.find("no kernel image"), std::string::npos);
  // cu128 carries sm_120 and runs on this 12.8 driver; cu130 would need a driver update too.
  EXPECT_EQ(lines[0].fix.en, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu128");
}

TEST(CompatRules, ArchitectureMatchingFollowsCudaBinaryCompatibility) {
  // sm_86 code runs on an 8.9 card (same major, lower minor).
  CompatFacts f{Torch("2.1.0+cu118", "11.8", {"sm_80", "sm_86"}), "", Driver("12.4", {kRtx4090})};
  EXPECT_EQ(Lines("torch_arch_list", f)[0].status, Outcome::Pass);
  // Only PTX: it runs after a JIT compile.
  f.python = Torch("2.1.0+cu118", "11.8", {"sm_80", "sm_90", "compute_90"});
  f.driver = Driver("12.8", {kRtx5090});
  EXPECT_EQ(Lines("torch_arch_list", f)[0].status, Outcome::Warn);
  // "sm_90a" code is for 9.0 exactly.
  f.python = Torch("2.4.0", "12.4", {"sm_90a"});
  EXPECT_EQ(Lines("torch_arch_list", f)[0].status, Outcome::Fail);
  f.driver = Driver("12.4", {kH100});
  EXPECT_EQ(Lines("torch_arch_list", f)[0].status, Outcome::Pass);
}

TEST(CompatRules, FeaturesAgainstEachCard) {
  CompatFacts f{Torch("2.5.1", "12.4", {"sm_75", "sm_89"}), "", Driver("12.4", {kT4, GpuFacts{1, "NVIDIA GeForce RTX 4090", 89}})};
  f.python->packages["flash-attn"] = PackageFacts{"2.6.3", {"torch"}};
  auto status = [&](const std::string& rule, int gpu) {
    for (const CompatLine& l : Lines(rule, f))
      if (l.gpu == gpu) return l.status;
    ADD_FAILURE() << rule << " gpu " << gpu;
    return Outcome::NotRun;
  };
  EXPECT_EQ(status("feature_bf16", 0), Outcome::Warn);  // T4: no BF16, the course trains in BF16
  EXPECT_EQ(status("feature_bf16", 1), Outcome::Pass);
  EXPECT_EQ(status("feature_fp8", 0), Outcome::Pass);   // missing, but nothing installed relies on it
  EXPECT_EQ(status("feature_fp8", 1), Outcome::Pass);
  EXPECT_EQ(status("feature_flash_attn_2", 0), Outcome::Warn);  // flash-attn installed on a Turing card
  EXPECT_EQ(status("feature_flash_attn_3", 1), Outcome::Pass);  // not Hopper, and FA3 is not installed
  for (const CompatLine& l : Lines("feature_flash_attn_3", f)) {
    if (l.gpu == 1) {
      EXPECT_TRUE(l.na) << "a feature the card lacks reads N/A, not PASS";
    }
  }
  for (const CompatLine& l : Lines("feature_flash_attn_2", f)) {
    if (l.gpu == 0) {
      EXPECT_EQ(l.fix.en.rfind("pip uninstall -y flash-attn", 0), 0u) << l.fix.en;
    }
  }
  f.python->packages["flash-attn-3"] = PackageFacts{"3.0.0b1", {}};
  EXPECT_EQ(status("feature_flash_attn_3", 1), Outcome::Warn);
  f.driver = Driver("12.4", {kH100});
  EXPECT_EQ(Lines("feature_flash_attn_3", f)[0].status, Outcome::Pass);
  EXPECT_EQ(Lines("feature_fp8", f)[0].status, Outcome::Pass);
}

TEST(CompatRules, PackagesThatPinAnotherTorch) {
  CompatFacts f{Torch("2.5.1+cu124", "12.4", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  f.python->packages["vllm"] = PackageFacts{"0.6.3", {"torch==2.4.0"}};
  f.python->packages["bitsandbytes"] = PackageFacts{"0.45.0", {"torch<3,>=2.0"}};
  f.python->packages["flash-attn"] = PackageFacts{"2.6.3", {"torch"}};
  auto lines = Lines("package_requires_torch", f);
  ASSERT_EQ(lines.size(), 2u);  // flash-attn's bare "torch" says nothing
  for (const CompatLine& l : lines) {
    if (l.subject.en.rfind("vllm", 0) == 0) {
      EXPECT_EQ(l.status, Outcome::Warn);
      EXPECT_NE(l.fix.en.find("~/venvs/vllm"), std::string::npos);
      EXPECT_NE(l.facts.en.find("requires torch==2.4.0"), std::string::npos);
    } else {
      EXPECT_EQ(l.status, Outcome::Pass) << l.subject.en;
    }
  }
  f.python->packages["bitsandbytes"] = PackageFacts{"0.41.0", {"torch<2.5"}};
  bool failed = false;
  for (const CompatLine& l : Lines("package_requires_torch", f))
    if (l.subject.en.rfind("bitsandbytes", 0) == 0) {
      failed = l.status == Outcome::Fail;
      EXPECT_EQ(l.fix.en, "pip install --force-reinstall bitsandbytes");
    }
  EXPECT_TRUE(failed);
}

TEST(CompatRules, UndefinedSymbolOnImportFailsWithTheReinstall) {
  CompatFacts f{Torch("2.5.1", "12.4", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  f.python->packages["flash-attn"] = PackageFacts{"2.6.3", {}};
  f.python->import_errors["flash-attn"] = "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi";
  auto lines = Lines("extension_import", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Fail);
  EXPECT_NE(lines[0].breaks.en.find("undefined symbol"), std::string::npos);
  EXPECT_EQ(lines[0].fix.en, "pip install --force-reinstall --no-build-isolation flash-attn");
}

TEST(CompatRules, TritonMustBeTheOneTorchPins) {
  CompatFacts f{Torch("2.5.1", "12.4", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  f.python->packages["torch"] = PackageFacts{"2.5.1", {"triton==3.1.0"}};
  f.python->packages["triton"] = PackageFacts{"3.0.0", {}};
  auto lines = Lines("triton_pin", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Fail);
  EXPECT_EQ(lines[0].fix.en, "pip install \"triton==3.1.0\"");
  f.python->packages["triton"] = PackageFacts{"3.1.0", {}};
  EXPECT_EQ(Lines("triton_pin", f)[0].status, Outcome::Pass);
}

TEST(CompatRules, NcclInTorchAgainstTheSystemOne) {
  CompatFacts f{Torch("2.5.1", "12.4", {"sm_89"}), "", Driver("12.4", {kRtx4090})};
  f.python->torch_nccl = "2.21.5";
  f.driver->system_nccl = "2.18.1";
  f.driver->system_nccl_path = "/opt/nccl/lib/libnccl.so.2";
  f.driver->system_nccl_origin = "LD_LIBRARY_PATH";
  auto lines = Lines("nccl_versions", f);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].status, Outcome::Warn);
  EXPECT_NE(lines[0].fix.en.find("remove /opt/nccl/lib from LD_LIBRARY_PATH"), std::string::npos);
  f.driver->system_nccl_origin = "loader cache";  // torch finds its own first
  EXPECT_EQ(Lines("nccl_versions", f)[0].status, Outcome::Pass);
  f.driver->system_nccl = std::nullopt;  // only torch's: nothing to compare
  EXPECT_TRUE(Lines("nccl_versions", f).empty());
}

TEST(CompatRules, MissingSidesAreNotAvailable) {
  CompatFacts f;
  f.python_problem = "no Python found";
  CheckResult r = AssessCompat(f, Data());
  // Every line N/A: a SKIP that says why, not a PASS for what nobody compared.
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_NE(r.reason.en.find("no Python found"), std::string::npos) << r.reason.en;
  ASSERT_FALSE(r.data["lines"].empty());
  EXPECT_EQ(r.data["lines"][0]["status"], "N/A");
}

TEST(CompatRules, ParsesTheProbesResult) {
  nlohmann::json probe = {{"torch", {{"version", "2.5.1+cu124"}, {"cuda", "12.4"}, {"arch_list", {"sm_80", "sm_90"}},
                                     {"nccl", "2.21.5"}, {"import_error", nullptr}}},
                          {"packages", {{"torch", {{"version", "2.5.1+cu124"}, {"requires", {"triton==3.1.0"}}}}, {"vllm", nullptr}}},
                          {"imports", {{"bitsandbytes", "OSError: libcudart.so.11.0: cannot open shared object file"}, {"flash-attn", nullptr}}}};
  Result<PythonSide> p = ParseCompatProbe(probe);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*p->torch_cuda, "12.4");
  EXPECT_EQ(p->arch_list->size(), 2u);
  EXPECT_FALSE(p->packages.at("vllm").has_value());
  EXPECT_EQ(p->packages.at("torch")->requires_dist[0], "triton==3.1.0");
  EXPECT_EQ(p->import_errors.size(), 1u);
  EXPECT_FALSE(ParseCompatProbe({{"torch", 1}}).ok());
}

TEST(CompatRules, DriverSideFromInventory) {
  nlohmann::json data = {{"driver_version", "570.124.06"}, {"cuda_driver_version", "12.8"},
                         {"gpus", {{{"index", 0}, {"name", "NVIDIA GeForce RTX 5090"}, {"cc_major", 12}, {"cc_minor", 0}}}},
                         {"libraries", {{{"name", "NCCL"}, {"path", "/usr/lib/x86_64-linux-gnu/libnccl.so.2"}, {"origin", "loader cache"}, {"version", "2.19.3"}}}}};
  DriverSide d = DriverFromInventory(data);
  EXPECT_EQ(d.driver_cuda, "12.8");
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_EQ(d.gpus[0].cc, 120);
  EXPECT_EQ(*d.system_nccl, "2.19.3");
  data["libraries"][0]["origin"] = "Python site-packages";
  EXPECT_FALSE(DriverFromInventory(data).system_nccl.has_value());
}

}  // namespace
}  // namespace labcheck::compat
