/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Semihosting and the newlib system calls of the Cortex-M test image.
 *
 * Semihosting ("Semihosting for AArch32 and AArch64", ARM): the program
 * executes BKPT 0xAB with an operation number in r0 and an argument in r1;
 * a debugger, or QEMU with -semihosting-config enable=on, performs it on the
 * host. The image uses four operations: SYS_OPEN ":tt" for the console,
 * SYS_WRITE, SYS_WRITE0 (fault reports) and SYS_EXIT, whose reason decides
 * QEMU's exit status (ApplicationExit -> 0, anything else -> 1).
 *
 * This file belongs to the test image, not to the port: firmware that ships
 * has its own console and never stops.
 */
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>

#define SH_SYS_OPEN 0x01
#define SH_SYS_WRITE0 0x04
#define SH_SYS_WRITE 0x05
#define SH_SYS_EXIT 0x18
#define SH_ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define SH_ADP_STOPPED_RUNTIME_ERROR 0x20023u

static uintptr_t sh_call(uintptr_t op, const void *arg)
{
    register uintptr_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;

    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static void sh_write0(const char *s)
{
    sh_call(SH_SYS_WRITE0, s);
}

__attribute__((noreturn)) static void sh_exit(int status)
{
    uintptr_t reason = status == 0 ? SH_ADP_STOPPED_APPLICATION_EXIT
                                   : SH_ADP_STOPPED_RUNTIME_ERROR;

    sh_call(SH_SYS_EXIT, (const void *)reason);
    for (;;)
        __asm__ volatile("wfi");
}

static long sh_console = -1;

static long sh_console_handle(void)
{
    if (sh_console < 0) {
        static const char tt[] = ":tt";
        uintptr_t args[3] = {(uintptr_t)tt, 4 /* "w": stdout */, 3};

        sh_console = (long)sh_call(SH_SYS_OPEN, args);
    }
    return sh_console;
}

/* A fault in the test image: say which, and stop QEMU with a failure. */
void ofl_bm_on_fault(uint32_t exception);
void ofl_bm_on_fault(uint32_t exception)
{
    char msg[] = "\nFAULT: exception 00\n";

    msg[18] = (char)('0' + exception / 10 % 10);
    msg[19] = (char)('0' + exception % 10);
    sh_write0(msg);
    sh_exit(1);
}

/* newlib's system calls (newlib/libc/include/sys/... "syscall stubs"). */
int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int off, int whence);
void *_sbrk(ptrdiff_t incr);
void _exit(int status) __attribute__((noreturn));
int _kill(int pid, int sig);
int _getpid(void);
int _open(const char *path, int flags, ...);
int _unlink(const char *path);
int _stat(const char *path, struct stat *st);
int _gettimeofday(struct timeval *tv, void *tz);
clock_t _times(struct tms *t);
int posix_memalign(void **p, size_t align, size_t size);

int _write(int fd, const char *buf, int len)
{
    uintptr_t args[3];
    long h = sh_console_handle();

    (void)fd; /* stdout and stderr both go to the console */
    if (h < 0 || len < 0) {
        errno = EIO;
        return -1;
    }
    args[0] = (uintptr_t)h;
    args[1] = (uintptr_t)buf;
    args[2] = (uintptr_t)len;
    return len - (int)sh_call(SH_SYS_WRITE, args);
}

int _read(int fd, char *buf, int len)
{
    (void)fd;
    (void)buf;
    (void)len;
    return 0;
}

int _close(int fd)
{
    (void)fd;
    return -1;
}

int _fstat(int fd, struct stat *st)
{
    (void)fd;
    st->st_mode = S_IFCHR;
    return 0;
}

int _isatty(int fd)
{
    (void)fd;
    return 1;
}

int _lseek(int fd, int off, int whence)
{
    (void)fd;
    (void)off;
    (void)whence;
    return 0;
}

/* The heap runs from the end of .bss to the end of PSRAM (mps2.ld). */
extern char __heap_start[], __heap_end[];

void *_sbrk(ptrdiff_t incr)
{
    static char *brk = __heap_start;
    char *old = brk;

    if (incr < 0 || incr > __heap_end - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return old;
}

void _exit(int status)
{
    sh_exit(status);
}

int _kill(int pid, int sig)
{
    (void)pid;
    (void)sig;
    errno = EINVAL;
    return -1;
}

int _getpid(void)
{
    return 1;
}

/* No file system and no clock: a test that needs them is marked posix. */
int _open(const char *path, int flags, ...)
{
    (void)path;
    (void)flags;
    errno = ENOSYS;
    return -1;
}

int _unlink(const char *path)
{
    (void)path;
    errno = ENOSYS;
    return -1;
}

int _stat(const char *path, struct stat *st)
{
    (void)path;
    (void)st;
    errno = ENOSYS;
    return -1;
}

int _gettimeofday(struct timeval *tv, void *tz)
{
    (void)tz;
    if (tv != NULL) {
        tv->tv_sec = 0;
        tv->tv_usec = 0;
    }
    return 0;
}

clock_t _times(struct tms *t)
{
    (void)t;
    errno = ENOSYS;
    return (clock_t)-1;
}

/* newlib's aligned_alloc (C11) calls posix_memalign, which it lacks. */
int posix_memalign(void **p, size_t align, size_t size)
{
    void *m = memalign(align, size);

    if (m == NULL)
        return ENOMEM;
    *p = m;
    return 0;
}
