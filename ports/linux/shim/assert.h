/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* <assert.h> for test code built into the kernel module: see ofl_kshim.h. */
#include "ofl_kshim.h"
