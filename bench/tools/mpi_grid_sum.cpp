// Host cost of summing a PME charge grid (uint64, fixed point) over MPI ranks, the host-orchestrated
// transports' GpuHaloTransport::sum_grid without the device copies: (a) every rank's grid to every other with
// Isend/Irecv and a host sum, as at f662813; (b) one MPI_Iallreduce polled with MPI_Testall, as at 26448a5;
// (c) a blocking MPI_Allreduce. A diagnostic for bench/NOTES.md (twenty-seventh session).
// Build: mpicxx -O2 -std=c++20 bench/tools/mpi_grid_sum.cpp -o mpi_grid_sum
// Run:   mpirun -n 4 ./mpi_grid_sum 262144 200
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 262144;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 200;
  std::vector<unsigned long long> grid(count * n);
  auto poll = [](std::vector<MPI_Request>& reqs) {
    for (int done = 0; !done; std::this_thread::yield())
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
  };
  for (int method = 0; method < 3; ++method) {
    double total = 0.0;
    for (int r = -5; r < reps; ++r) {
      for (size_t k = 0; k < count; ++k) grid[me * count + k] = k + r + me;
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      unsigned long long* mine = grid.data() + me * count;
      if (method == 0) {
        std::vector<MPI_Request> reqs;
        for (int p = 0; p < n; ++p) {
          if (p == me) continue;
          reqs.emplace_back();
          MPI_Irecv(grid.data() + p * count, static_cast<int>(count * 8), MPI_BYTE, p, 2, MPI_COMM_WORLD,
                    &reqs.back());
        }
        for (int p = 0; p < n; ++p) {
          if (p == me) continue;
          reqs.emplace_back();
          MPI_Isend(mine, static_cast<int>(count * 8), MPI_BYTE, p, 2, MPI_COMM_WORLD, &reqs.back());
        }
        poll(reqs);
        for (int p = 0; p < n; ++p)
          if (p != me)
            for (size_t k = 0; k < count; ++k) mine[k] += grid[p * count + k];
      } else if (method == 1) {
        std::vector<MPI_Request> reqs(1);
        MPI_Iallreduce(MPI_IN_PLACE, mine, static_cast<int>(count), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD,
                       &reqs[0]);
        poll(reqs);
      } else {
        MPI_Allreduce(MPI_IN_PLACE, mine, static_cast<int>(count), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      }
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 0) total += us;
    }
    if (me == 0)
      std::printf("%d ranks, %zu values: %s %.0f us per sum\n", n, count,
                  method == 0   ? "all-to-all + host sum"
                  : method == 1 ? "MPI_Iallreduce polled"
                                : "MPI_Allreduce",
                  total / reps);
  }
  MPI_Finalize();
}
