// PCIe arithmetic, the one source every module uses: a link's one-direction limit after line
// encoding (8b/10b for gens 1–2, 128b/130b for 3–5, FLIT for 6), before protocol overhead. The
// catalog's table (data/gpus.json "pcie") adds what copies reach in practice and must agree with it.
#pragma once

namespace labcheck::reference {

// GB/s (10^9 B/s) one direction; 0 for an unknown generation or width.
double PcieLimitGbps(int generation, int width);

}  // namespace labcheck::reference
