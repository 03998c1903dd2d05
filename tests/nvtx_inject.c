/* SPDX-License-Identifier: Apache-2.0 */
/* nvtx_inject.c — the smallest NVTX tool: an injection library (loaded by
 * NVTX through NVTX_INJECTION64_PATH) that writes every range push and pop
 * to the file CUPAT_NVTX_LOG names, a line each. test_nvtx reads it. */
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>

static FILE *out;

static int NVTX_API push_a(const char *message)
{
    fprintf(out, "push %s\n", message ? message : "(null)");
    return 0;
}

static int NVTX_API pop(void)
{
    fprintf(out, "pop\n");
    return 0;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    const char *path = getenv("CUPAT_NVTX_LOG");
    if (!path || !(out = fopen(path, "w"))) return 0;
    setvbuf(out, NULL, _IONBF, 0);
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_table(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable core = NULL;
    unsigned int size = 0;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &size) || size <= NVTX_CBID_CORE_RangePop)
        return 0;
    *core[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push_a;
    *core[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
    return 1;
}
