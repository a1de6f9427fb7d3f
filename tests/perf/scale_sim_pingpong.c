/* MPI round trip between rank 0 and rank 1 with message sizes like hpcreward's task (rank 0
 * -> rank 1) and result (rank 1 -> rank 0) JSON, received as the product does: MPI_Iprobe,
 * MPI_Get_count, MPI_Recv. Busy-polls (no sleep): the product's 2 ms poll sleep is modelled
 * separately in scale_sim.py. Prints JSON: seconds per round trip for each size pair. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void recv_probe(int source, int tag, char *buf) {
  MPI_Status status;
  int flag = 0, count = 0;
  while (!flag) MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status);
  MPI_Get_count(&status, MPI_CHAR, &count);
  MPI_Recv(buf, count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int sizes[][2] = {{1500, 700}, {4000, 700}, {16000, 700}};
  const int reps = 5000;
  char *buf = calloc(1 << 16, 1);
  if (rank == 0) printf("{\"round_trip_s\": {");
  for (int s = 0; s < 3; ++s) {
    const int task = sizes[s][0], result = sizes[s][1];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = 0;
    for (int i = -200; i < reps; ++i) {
      if (i == 0) t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, task, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        recv_probe(MPI_ANY_SOURCE, 2, buf);
      } else {
        recv_probe(0, 1, buf);
        MPI_Send(buf, result, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
      }
    }
    double per = (MPI_Wtime() - t0) / reps;
    if (rank == 0) printf("%s\"%d+%d\": %.3e", s ? ", " : "", task, result, per);
  }
  if (rank == 0) printf("}}\n");
  free(buf);
  MPI_Finalize();
  return 0;
}
