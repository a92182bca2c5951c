/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* The test runner: every suite the Makefile found, then the closing line. */
#include "test.h"

#include <stdlib.h>

unsigned long ofl_test_passed, ofl_test_failed;

void ofl_test_fail_at(const char *file, int line, const char *what)
{
    ofl_test_failed++;
    printf("FAIL %s:%d: %s\n", file, line, what);
}

#define OFL_SUITE_ENTRY(name) void ofl_suite_##name(void);
#include "suites.h"
#undef OFL_SUITE_ENTRY

struct suite {
    const char *name;
    void (*run)(void);
};

#define OFL_SUITE_ENTRY(name) {#name, ofl_suite_##name},
static const struct suite suites[] = {
#include "suites.h"
};
#undef OFL_SUITE_ENTRY

int main(int argc, char **argv); /* the module's ofl_selftest_main: W=1 */

int main(int argc, char **argv)
{
    size_t i;
    int j;

    for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
        unsigned long p = ofl_test_passed, f = ofl_test_failed;
        int selected = argc < 2;

        for (j = 1; j < argc; j++)
            if (strcmp(argv[j], suites[i].name) == 0)
                selected = 1;
        if (!selected)
            continue;
        suites[i].run();
        printf("suite %-12s %lu passed, %lu failed\n", suites[i].name,
               ofl_test_passed - p, ofl_test_failed - f);
    }
    printf("%lu passed, %lu failed\n", ofl_test_passed, ofl_test_failed);
    return ofl_test_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
