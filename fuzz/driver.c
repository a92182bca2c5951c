/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * main() for the AFL++ and plain builds of a harness (libFuzzer brings its
 * own). Under afl-clang-fast it runs in persistent mode with shared-memory
 * test cases; built with any other compiler it replays the files (or every
 * file in the directories) named on the command line, or stdin.
 */
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_MAX_INPUT (1u << 20)

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();

int main(void)
{
    unsigned char *buf;

    __AFL_INIT();
    buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) {
        int len = __AFL_FUZZ_TESTCASE_LEN;

        LLVMFuzzerTestOneInput(buf, (size_t)len);
    }
    return 0;
}

#else

static unsigned long replayed;

static int replay_file(const char *path)
{
    static uint8_t buf[FUZZ_MAX_INPUT];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (f == NULL) {
        perror(path);
        return 1;
    }
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    replayed++;
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *de;
    int rc = 0;

    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    d = opendir(path);
    if (d == NULL) {
        perror(path);
        return 1;
    }
    while ((de = readdir(d)) != NULL) {
        char full[4096];

        if (de->d_name[0] == '.')
            continue;
        snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            rc |= replay_file(full);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int i, rc = 0;

    if (argc < 2) {
        static uint8_t buf[FUZZ_MAX_INPUT];
        size_t n = fread(buf, 1, sizeof(buf), stdin);

        LLVMFuzzerTestOneInput(buf, n);
        return 0;
    }
    for (i = 1; i < argc; i++)
        rc |= replay_path(argv[i]);
    printf("%s: replayed %lu inputs\n", argv[0], replayed);
    return rc;
}
#endif
