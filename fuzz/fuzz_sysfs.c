/* SPDX-License-Identifier: MIT */
/* fuzz_sysfs.c - libFuzzer harness for the small text parsers of the PCI and framework
 * scans: the TOTAL_ERR_* line of a sysfs aer_dev_* file (src/core/sysfs.c) and the quoted
 * values of torch/version.py and tensorflow's build_info.py (src/core/frameworks.c). Any
 * bytes must parse without crashing, and a value found must fit its buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/frameworks.h"
#include "core/sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), out[16];
    uint64_t v;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    (void)gs_pci_aer_total(text, &v);
    static const char *const keys[] = { "__version__", "cuda", "cuda_version" };
    for (int k = 0; k < 3; k++)
        if (gs_frameworks_quoted(text, keys[k], out, sizeof(out)) && strlen(out) >= sizeof(out))
            abort();
    free(text);
    return 0;
}
