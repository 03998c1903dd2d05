/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_coop.c — `cupat lab coop`: cooperative groups, from thread_block
 * to grid_group with a cooperative launch (lab/coop); the command is
 * cli_lab_main. */
#include "cli.h"
#include "commands.h"

#include "coop/coop.h"

int cmd_lab_coop(int argc, char **argv)
{
    static const cli_lab_desc d = {
        "cupat lab coop", "coop",
        "Cooperative groups (CUDA Guide 11): thread_block, tiled partitions (static and dynamic) and\n"
        "coalesced groups with their collectives (reduce, inclusive_scan, sync) checked against the\n"
        "host; grid_group with cudaLaunchCooperativeKernel: the largest co-resident grid and the\n"
        "refusal beyond it, a one-kernel reduction with grid.sync() against two launches, and an\n"
        "iteration with grid.sync() between steps against one launch a step.",
        lab_coop_exp, lab_coop_run};
    return cli_lab_main(argc, argv, &d);
}
