// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_cm - connection management for the iw_cm (iWARP connection
 * manager): listen, connect, accept, reject over kernel TCP sockets, with
 * the MPA exchange decided by the core (ofl_mpa_*).
 *
 * NOT YET DONE. The ops are registered so that the device is a complete
 * iWARP device to the RDMA core (iw_cm requires them), but every one
 * fails: no connection can be made, so no QP reaches RTS (ofl_iw_qp.c),
 * and rdma_cm users get -EOPNOTSUPP.
 */
#include <rdma/iw_cm.h>
#include "ofl_iw.h"

int ofl_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
    return -EOPNOTSUPP; /* not yet done */
}

int ofl_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
    return -EOPNOTSUPP; /* not yet done */
}

int ofl_iw_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
    return -EOPNOTSUPP; /* not yet done */
}

int ofl_iw_create_listen(struct iw_cm_id *id, int backlog)
{
    return -EOPNOTSUPP; /* not yet done */
}

int ofl_iw_destroy_listen(struct iw_cm_id *id)
{
    return 0; /* nothing was listening */
}

/* QP references for the iw_cm: not yet done (with connection management:
 * a reference on the QP, and iw_get_qp from the device's QP table). */
void ofl_iw_qp_add_ref(struct ib_qp *qp)
{
}

void ofl_iw_qp_rem_ref(struct ib_qp *qp)
{
}

struct ib_qp *ofl_iw_get_qp(struct ib_device *ibdev, int qpn)
{
    return NULL; /* not yet done */
}
