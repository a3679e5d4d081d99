/* The hand-written baselines (../baselines.c) with the parameters of the
 * generated converters, for `spf build SRC DST --baseline FILE.c`: the
 * converter's program then times the baseline beside the generated code in
 * one process (src/cli/driver.rs, `Baseline`). One file per conversion,
 * each defining `baseline`; the pointer arrays the program allocates
 * (rowptr, colptr) are filled in place, every other output is allocated by
 * the baseline, as the generated code allocates it. */
#ifndef BL_PAIRED_H
#define BL_PAIRED_H
#include <stdio.h>
#include "../baselines.c"

/* A baseline that could not run (out of memory, a Morton code wider than
 * 64 bits): the program stops, and the benchmark reports the failure. */
static void bl_fail(const char *what)
{
    fprintf(stderr, "the hand-written baseline %s failed (out of memory or unsupported)\n", what);
    exit(3);
}
#endif
