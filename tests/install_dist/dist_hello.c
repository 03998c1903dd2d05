/* SPDX-License-Identifier: Apache-2.0 */
/* dist_hello.c — the smallest program on cupat_dist.h: a communicator over
 * MPI_COMM_WORLD on the CPU backend; prints its rank, size and transport. */
#include <cupat_dist.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cupat_ctx *ctx = NULL;
    cupat_comm *comm = NULL;
    int rc = 0;
    if (cupat_create(&ctx, CUPAT_BACKEND_CPU, -1) != CUPAT_SUCCESS ||
        cupat_comm_create(&comm, ctx, MPI_COMM_WORLD) != CUPAT_SUCCESS) {
        fprintf(stderr, "dist_hello: %s\n", cupat_last_error(ctx));
        rc = 1;
    } else {
        printf("dist_hello: rank %d of %d, transport %s\n", cupat_comm_rank(comm), cupat_comm_size(comm),
               cupat_comm_transport(comm));
    }
    cupat_comm_destroy(comm);
    cupat_destroy(ctx);
    MPI_Finalize();
    return rc;
}
