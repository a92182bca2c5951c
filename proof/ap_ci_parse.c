/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/* CI frames: ap_ci_check (the CI header, every record header, its sum and
 * length, the CRC-32C trailer, the address) over every frame
 * of up to 65,561 bytes: 14 Ethernet + 8 CI header + 65,535 (the largest
 * record area the 16-bit length can give) + 4 CRC, and every length
 * 14..65,561 (ofl_ap_rx refuses shorter frames before ap_rx_ci). The
 * NIC's port is prove_port (prove.h): its CRC hook reads the whole range
 * the check hands it, by index.
 *
 * NOT analysed here: ap_rx_ci's second walk, which hands each record to
 * ap_rec_parse (bytes 0..19 of the record header) and ap_rx_record. It
 * steps by the same lengths ap_ci_check walked and summed (bytes 0..23 of
 * each header), but that is a relation between two loops Eva does not
 * keep: a driver that repeats the walk gets 8 alarms in ap_rec_parse. */
/* eva: -eva-precision 7 */
#include "prove.h"

#define MAX (OFL_AP_ETH_HDR + OFL_AP_CI_HDR + 65535u + OFL_AP_CI_TRAILER)

static uint8_t in[MAX];
static struct ofl_ap_nic nic;

int main(void)
{
    uint32_t count = 0;

    prove_unknown(in, MAX);
    prove_unknown(&nic.self, sizeof nic.self);
    nic.port = &prove_port;
    return (int)ap_ci_check(&nic, in, prove_len(OFL_AP_ETH_HDR, MAX), &count);
}
