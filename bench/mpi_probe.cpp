// MPI between ranks of one host, as a repartition uses it: the latency of a one-value MPI_Allreduce, and a
// ring of MPI_Sendrecv of several sizes between buffers used before and between fresh ones (a page faulted
// in costs ~2.5 us on the GPU machine's virtual machines: bench/NOTES.md, fifteenth session). Rank 0 prints
// one JSON object. Built and run by bench/host_repartition.sh (mpicxx -O2 -o mpi_probe bench/mpi_probe.cpp;
// mpirun -n 4 ./mpi_probe).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto us = [](auto a, auto b) { return std::chrono::duration<double, std::micro>(b - a).count(); };
  double x = rank;
  for (int i = 0; i < 100; ++i) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  auto t0 = now();
  for (int i = 0; i < 2000; ++i) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double ar = us(t0, now()) / 2000;
  std::string rings;
  for (size_t bytes : {4096ul, 65536ul, 560000ul, 2000000ul}) {
    std::vector<char> a(bytes, 1), b(bytes);
    const int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int i = 0; i < 5; ++i)
      MPI_Sendrecv(a.data(), bytes, MPI_BYTE, to, 1, b.data(), bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    const int it = 50;
    for (int i = 0; i < it; ++i)
      MPI_Sendrecv(a.data(), bytes, MPI_BYTE, to, 1, b.data(), bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    double t = us(t0, now()) / it;
    // fresh buffers each time (as the plan's vectors are)
    t0 = now();
    for (int i = 0; i < 10; ++i) {
      std::vector<char> c(bytes, 1), d(bytes);
      MPI_Sendrecv(c.data(), bytes, MPI_BYTE, to, 1, d.data(), bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    double tf = us(t0, now()) / 10;
    char line[160];
    std::snprintf(line, sizeof line,
                  "%s{\"bytes\": %zu, \"used_buffers_us\": %.1f, \"fresh_buffers_us\": %.1f}",
                  rings.empty() ? "" : ", ", bytes, t, tf);
    rings += line;
  }
  if (rank == 0)
    std::printf("{\"ranks\": %d, \"allreduce_1_double_us\": %.2f, \"sendrecv_ring\": [%s]}\n", size, ar,
                rings.c_str());
  MPI_Finalize();
}
