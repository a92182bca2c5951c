// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * offload_selftest.ko: the test suites of `make check` (those a kernel can
 * run, see mk/embed.mk) plus ports/linux/test_linux.c, run once at insmod.
 * The result is in the kernel log, ending with the same line as the host
 * run: "offload_selftest: N passed, M failed". insmod fails (-EINVAL) when
 * a test failed, so the module stays loaded only after a clean run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include "shim/ofl_kshim.h"
#include "offload.h"

int ofl_selftest_main(int argc, char **argv); /* tests/main.c's main() */

/* stdout/stderr of the tests: whole lines to the kernel log. */
struct ofl_kshim_file {
    int level; /* 0 info, 1 error */
};
static struct ofl_kshim_file ofl_kshim_out = {0}, ofl_kshim_err = {1};
FILE *ofl_kshim_stdout = &ofl_kshim_out, *ofl_kshim_stderr = &ofl_kshim_err;

static char ofl_kshim_line[512];
static size_t ofl_kshim_len;

static void ofl_kshim_flush_line(FILE *f)
{
    if (ofl_kshim_len == 0)
        return;
    ofl_kshim_line[ofl_kshim_len] = '\0';
    if (f && f->level)
        pr_err("%s\n", ofl_kshim_line);
    else
        pr_info("%s\n", ofl_kshim_line);
    ofl_kshim_len = 0;
    cond_resched(); /* a long suite must not look like a soft lockup */
}

int ofl_kshim_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char buf[256];
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    size_t i;

    for (i = 0; buf[i]; i++) {
        if (buf[i] == '\n' || ofl_kshim_len == sizeof(ofl_kshim_line) - 1)
            ofl_kshim_flush_line(f);
        if (buf[i] != '\n')
            ofl_kshim_line[ofl_kshim_len++] = buf[i];
    }
    return n;
}

int ofl_kshim_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = ofl_kshim_vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int ofl_kshim_printf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = ofl_kshim_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

int ofl_kshim_fflush(FILE *f)
{
    ofl_kshim_flush_line(f);
    return 0;
}

static int __init ofl_selftest_init(void)
{
    static char arg0[] = "offload_selftest";
    static char *argv[] = {arg0, NULL};
    int rc;

    pr_info("offload %s, core built with the kernel's flags; running the "
            "self-test\n", OFL_VERSION_STRING);
    rc = ofl_selftest_main(1, argv);
    ofl_kshim_flush_line(stdout);
    return rc == 0 ? 0 : -EINVAL;
}

static void __exit ofl_selftest_exit(void)
{
}

module_init(ofl_selftest_init);
module_exit(ofl_selftest_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("offload: RDMA/TCP offload decision logic, self-test");
