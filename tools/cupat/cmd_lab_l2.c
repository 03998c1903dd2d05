/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_l2.c — `cupat lab l2`: L2 persistence, the access-policy window
 * and the compute_90 / compute_90a feature sets (lab/l2); the command is
 * cli_lab_main. */
#include "cli.h"
#include "commands.h"

#include "l2/l2.h"

int cmd_lab_l2(int argc, char **argv)
{
    static const cli_lab_desc d = {
        "cupat lab l2", "l2",
        "L2 persistence (CUDA Guide 6.2.3; cc 8.0+, not under MIG): the set-aside asked and granted,\n"
        "a persisting access-policy window over a region read beside a 1 GiB stream against hitRatio\n"
        "and against the window's size, resetting persisting lines, the window as a launch attribute;\n"
        "and the feature sets (Guide 19.1): which files the build made sm_90a, and an sm_90a kernel\n"
        "(setmaxnreg) run. Every row checks its kernel's sum (ok / FAIL). The set-aside, the stream's\n"
        "window and the persisting lines are put back after each experiment.",
        lab_l2_exp, lab_l2_run};
    return cli_lab_main(argc, argv, &d);
}
