/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_cluster.c — `cupat lab cluster`: thread-block clusters and
 * distributed shared memory (lab/cluster); the command is cli_lab_main. */
#include "cli.h"
#include "commands.h"

#include "cluster/cluster.h"

int cmd_lab_cluster(int argc, char **argv)
{
    static const cli_lab_desc d = {
        "cupat lab cluster", "cluster",
        "Thread-block clusters and distributed shared memory (CUDA Guide 5.2.1, 5.3, 8.2.3.1; sm_90):\n"
        "launching clusters, the cluster group API, the size limits, the occupancy API against the\n"
        "clusters counted resident, DSMEM reads / writes / atomics, latency and bandwidth, and the\n"
        "library's cluster histogram. Every row checks its data (ok / FAIL); a device below cc 9.0\n"
        "gets one 'not supported' row.",
        lab_cluster_exp, lab_cluster_run};
    return cli_lab_main(argc, argv, &d);
}
