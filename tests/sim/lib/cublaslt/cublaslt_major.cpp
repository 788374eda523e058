// The cuBLASLt major a copy of the sim answers as, its soname's number: SIM_CUBLAS_MAJOR, set per
// library in tests/sim/CMakeLists.txt. The rest (cublaslt_sim.cpp) is compiled once for both.
int SimCublasMajor() { return SIM_CUBLAS_MAJOR; }
