#include "cluster/launcher_env.h"

#include <map>

#include <gtest/gtest.h>

#include "cluster/rendezvous.h"

namespace labcheck::cluster {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(LauncherEnv, NoLauncherIsRankZeroOfOne) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"HOME", "/root"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::None);
  EXPECT_EQ(env->rank, 0);
  EXPECT_EQ(env->world_size, 1);
}

TEST(LauncherEnv, Torchrun) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"},
                                             {"LOCAL_WORLD_SIZE", "4"}, {"GROUP_RANK", "1"},
                                             {"MASTER_ADDR", "node01"}, {"MASTER_PORT", "29500"},
                                             {"TORCHELASTIC_RUN_ID", "x"}}));
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->launcher, Launcher::Torchrun);
  EXPECT_EQ(env->rank, 5);
  EXPECT_EQ(env->world_size, 8);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->local_size, 4);
  EXPECT_EQ(env->node_index, 1);
  EXPECT_EQ(env->master_addr, "node01");
  EXPECT_EQ(env->master_port, 29500);
}

TEST(LauncherEnv, OpenMpi) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"},
                                             {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::OpenMpi);
  EXPECT_EQ(env->rank, 3);
  EXPECT_EQ(env->world_size, 4);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->local_size, 2);
}

TEST(LauncherEnv, Mpich) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}, {"MPI_LOCALRANKID", "0"}, {"MPI_LOCALNRANKS", "1"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::Mpich);
  EXPECT_EQ(env->rank, 2);
  EXPECT_EQ(env->world_size, 3);
  EXPECT_EQ(env->local_size, 1);
}

TEST(LauncherEnv, SlurmStep) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"SLURM_PROCID", "6"}, {"SLURM_STEP_NUM_TASKS", "7"}, {"SLURM_NTASKS", "99"},
                                             {"SLURM_STEP_ID", "0"}, {"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "3"},
                                             {"SLURM_STEP_NODELIST", "gpu[01-04]"}, {"SLURM_NODELIST", "other"},
                                             {"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}, {"SLURM_JOB_ID", "1234"}}));
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->launcher, Launcher::Slurm);
  EXPECT_EQ(env->rank, 6);
  EXPECT_EQ(env->world_size, 7);  // the step's tasks, not the job's
  EXPECT_EQ(env->node_list, "gpu[01-04]");
  EXPECT_EQ(env->local_size, 1);  // node 3 is the fourth: the "1"
  EXPECT_EQ(env->job_id, 1234);
}

TEST(LauncherEnv, AnSbatchScriptAloneIsNotAStep) {
  // sbatch sets SLURM_PROCID=0 and SLURM_NTASKS for the whole job; nobody else is starting.
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "16"}, {"SLURM_JOB_ID", "7"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::None);
  EXPECT_EQ(env->world_size, 1);
}

TEST(LauncherEnv, TorchrunInsideSlurmTakesTorchrunsRanks) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_ID", "0"},
                                             {"RANK", "9"}, {"WORLD_SIZE", "16"}, {"LOCAL_RANK", "1"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::Torchrun);
  EXPECT_EQ(env->rank, 9);
}

TEST(LauncherEnv, MpirunInsideSlurmTakesMpisRanks) {
  Result<LaunchEnv> env = ReadLaunchEnv(Env({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_STEP_ID", "0"},
                                             {"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"},
                                             {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->launcher, Launcher::OpenMpi);
  EXPECT_EQ(env->rank, 3);
}

TEST(LauncherEnv, ErrorsNameTheVariable) {
  Result<LaunchEnv> bad = ReadLaunchEnv(Env({{"OMPI_COMM_WORLD_RANK", "one"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                                             {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("OMPI_COMM_WORLD_RANK=one"), std::string::npos);

  Result<LaunchEnv> outside = ReadLaunchEnv(Env({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}));
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("rank 2 is outside a world of 2"), std::string::npos);

  Result<LaunchEnv> missing = ReadLaunchEnv(Env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("OMPI_COMM_WORLD_SIZE"), std::string::npos);
}

TEST(LauncherEnv, SlurmTasksPerNode) {
  EXPECT_EQ(TasksOnNode("4", 0), 4);
  EXPECT_EQ(TasksOnNode("2(x3),1", 0), 2);
  EXPECT_EQ(TasksOnNode("2(x3),1", 2), 2);
  EXPECT_EQ(TasksOnNode("2(x3),1", 3), 1);
  EXPECT_EQ(TasksOnNode("2(x3),1", 4), std::nullopt);
  EXPECT_EQ(TasksOnNode("2(x3", 0), std::nullopt);
}

TEST(Rendezvous, TorchrunUsesMasterPortPlusOne) {
  LaunchEnv launch;
  launch.launcher = Launcher::Torchrun;
  launch.world_size = 4;
  launch.master_addr = "node01";
  launch.master_port = 29500;
  Result<Rendezvous> r = ChooseRendezvous(launch, Env({}), std::nullopt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->CommId(kSweepPortOffset), "node01:29501");
  EXPECT_EQ(r->CommId(kGatherPortOffset), "node01:29502");
}

TEST(Rendezvous, UserCommIdWinsAndPortOverrides) {
  LaunchEnv launch;
  launch.world_size = 2;
  Result<Rendezvous> r = ChooseRendezvous(launch, Env({{"NCCL_COMM_ID", "[fe80::1]:4000"}}), std::nullopt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->CommId(0), "[fe80::1]:4000");
  Result<Rendezvous> p = ChooseRendezvous(launch, Env({{"NCCL_COMM_ID", "10.0.0.1:4000"}}), 5000);
  EXPECT_EQ(p->CommId(1), "10.0.0.1:5001");
  EXPECT_FALSE(ChooseRendezvous(launch, Env({{"NCCL_COMM_ID", "10.0.0.1"}}), std::nullopt).ok());
}

TEST(Rendezvous, SlurmFirstHostAndJobPort) {
  LaunchEnv launch;
  launch.launcher = Launcher::Slurm;
  launch.world_size = 8;
  launch.node_list = "gpu[07-08],gpu10";
  launch.job_id = 1003;
  Result<Rendezvous> r = ChooseRendezvous(launch, Env({}), std::nullopt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->host, "gpu07");
  EXPECT_EQ(r->base_port, kDefaultBasePort + 6);
}

TEST(Rendezvous, MpiOnOneHostIsLoopbackAcrossHostsNeedsMasterAddr) {
  LaunchEnv launch;
  launch.launcher = Launcher::OpenMpi;
  launch.world_size = 2;
  launch.local_size = 2;
  EXPECT_EQ(ChooseRendezvous(launch, Env({}), std::nullopt)->host, "127.0.0.1");
  launch.local_size = 1;
  Result<Rendezvous> r = ChooseRendezvous(launch, Env({}), std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("-x MASTER_ADDR"), std::string::npos);
}

}  // namespace
}  // namespace labcheck::cluster
