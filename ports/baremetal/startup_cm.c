/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * Minimal Cortex-M (ARMv7-M) start-up: the vector table, the reset handler
 * that copies .data and clears .bss before calling main, and fault and
 * interrupt handlers. Symbols come from mps2.ld. Every external interrupt
 * goes to ofl_bm_irq_entry, which reads its number from IPSR and calls the
 * weak hook ofl_bm_on_irq(irq); a fault calls ofl_bm_on_fault(), which the
 * application overrides (the test image reports it and exits).
 */
#include <stdint.h>

#define OFL_BM_NUM_IRQ 32 /* external interrupts of the MPS2 boards */

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(int argc, char **argv);
void exit(int status) __attribute__((noreturn));

void Reset_Handler(void);
void ofl_bm_fault_entry(void);
void ofl_bm_irq_entry(void);
void ofl_bm_on_irq(uint32_t irq);
void ofl_bm_on_fault(uint32_t exception);

__attribute__((weak)) void ofl_bm_on_irq(uint32_t irq)
{
    (void)irq;
}

__attribute__((weak)) void ofl_bm_on_fault(uint32_t exception)
{
    (void)exception;
    for (;;)
        __asm__ volatile("wfi");
}

static uint32_t bm_ipsr(void)
{
    uint32_t v;

    __asm__ volatile("mrs %0, ipsr" : "=r"(v));
    return v & 0x1FFu;
}

void ofl_bm_fault_entry(void)
{
    ofl_bm_on_fault(bm_ipsr());
}

void ofl_bm_irq_entry(void)
{
    ofl_bm_on_irq(bm_ipsr() - 16u);
}

/* newlib's init/fini arrays call these; crti.o is not linked. */
void _init(void);
void _fini(void);
void _init(void)
{
}
void _fini(void)
{
}

void Reset_Handler(void)
{
    volatile uint32_t *s = __data_load, *d = __data_start;
    static char arg0[] = "offload-tests";
    static char *argv[] = {arg0, 0};

    /* Volatile pointers: these loops must not become memcpy/memset calls
     * before the C library can run. */
    while (d < __data_end)
        *d++ = *s++;
    for (d = __bss_start; d < __bss_end;)
        *d++ = 0;
    exit(main(1, argv));
}

typedef void (*ofl_bm_vector)(void);

#define IRQ_ ofl_bm_irq_entry
#define IRQ4_ IRQ_, IRQ_, IRQ_, IRQ_
#define FLT_ ofl_bm_fault_entry

/* ARMv7-M ARM B1.5.3: the initial main stack pointer, then the exception
 * handlers in exception-number order (1 = reset, 16.. = external IRQs). */
struct ofl_bm_vector_table {
    uint32_t *initial_sp;
    ofl_bm_vector handler[15 + OFL_BM_NUM_IRQ];
};

__attribute__((section(".vectors"), used))
const struct ofl_bm_vector_table ofl_bm_vectors = {
    __stack_top,
    {
        Reset_Handler,
        FLT_, /* 2 NMI */
        FLT_, /* 3 HardFault */
        FLT_, /* 4 MemManage */
        FLT_, /* 5 BusFault */
        FLT_, /* 6 UsageFault */
        0, 0, 0, 0,
        FLT_, /* 11 SVCall */
        FLT_, /* 12 DebugMonitor */
        0,
        FLT_, /* 14 PendSV */
        FLT_, /* 15 SysTick */
        IRQ4_, IRQ4_, IRQ4_, IRQ4_, IRQ4_, IRQ4_, IRQ4_, IRQ4_, /* 16..47 */
    },
};
