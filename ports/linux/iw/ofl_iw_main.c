// SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
/*
 * ofl_iw_main - the module: `rdma link add NAME type ofl netdev DEV` makes
 * one device per netdev (rdma_link_ops), `rdma link delete NAME`, the
 * netdev going away and module unload remove it (see ofl_iw.h).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>
#include "ofl_iw.h"

MODULE_DESCRIPTION("iWARP RDMA device on the offload engine");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK(OFL_IW_LINK_TYPE);

static LIST_HEAD(ofl_iw_devs);
static DEFINE_MUTEX(ofl_iw_lock);      /* the list */
static DEFINE_MUTEX(ofl_iw_link_lock); /* one newlink at a time: the
                                          check for an existing device and
                                          the registration are one step */
static atomic_t ofl_iw_dev_ids = ATOMIC_INIT(0);

/* The last driver callback of a device: from ib_dealloc_device, after an
 * unregistration or in the unwind of a failed registration. */
static void ofl_iw_dealloc_driver(struct ib_device *ibdev)
{
    struct ofl_iw_dev *dev = to_ofl_dev(ibdev);

    mutex_lock(&ofl_iw_lock);
    list_del_init(&dev->list);
    mutex_unlock(&ofl_iw_lock);
    WARN_ON(!xa_empty(&dev->cq_xa));
    WARN_ON(!xa_empty(&dev->qp_xa));
    xa_destroy(&dev->cq_xa);
    xa_destroy(&dev->qp_xa);
    ida_destroy(&dev->pd_ida);
    if (dev->netdev_held)
        dev_put(dev->netdev);
    kvfree(dev->tpt_entries);
    kvfree(dev->att);
    kvfree(dev->att_pool_map);
    kvfree(dev->att_owner);
}

/* The port's netdev, held for the caller (ib_device_get_netdev: the
 * iWARP query_port, rdma link show). */
static struct net_device *ofl_iw_get_netdev(struct ib_device *ibdev, u32 port)
{
    struct net_device *netdev = to_ofl_dev(ibdev)->netdev;

    if (port != 1 || !netdev)
        return NULL;
    dev_hold(netdev);
    return netdev;
}

/* Ours on netdev, with a reference (ib_device_put), or NULL. */
static struct ofl_iw_dev *ofl_iw_dev_by_netdev(struct net_device *netdev)
{
    struct ofl_iw_dev *dev, *found = NULL;

    mutex_lock(&ofl_iw_lock);
    list_for_each_entry(dev, &ofl_iw_devs, list) {
        if (dev->netdev == netdev && ib_device_try_get(&dev->ibdev)) {
            found = dev;
            break;
        }
    }
    mutex_unlock(&ofl_iw_lock);
    return found;
}

static const struct ib_device_ops ofl_iw_dev_ops = {
    .owner = THIS_MODULE,
    /* siw's user ABI, so that libsiw binds (see ofl_iw.h) */
    .driver_id = RDMA_DRIVER_SIW,
    .uverbs_abi_ver = SIW_ABI_VERSION,

    .alloc_mr = ofl_iw_alloc_mr,
    .alloc_pd = ofl_iw_alloc_pd,
    .alloc_ucontext = ofl_iw_alloc_ucontext,
    .create_cq = ofl_iw_create_cq,
    .create_qp = ofl_iw_create_qp,
    .dealloc_driver = ofl_iw_dealloc_driver,
    .dealloc_pd = ofl_iw_dealloc_pd,
    .get_netdev = ofl_iw_get_netdev,
    .dealloc_ucontext = ofl_iw_dealloc_ucontext,
    .dereg_mr = ofl_iw_dereg_mr,
    .destroy_cq = ofl_iw_destroy_cq,
    .destroy_qp = ofl_iw_destroy_qp,
    .get_dev_fw_str = ofl_iw_get_dev_fw_str,
    .get_dma_mr = ofl_iw_get_dma_mr,
    .get_port_immutable = ofl_iw_get_port_immutable,
    .map_mr_sg = ofl_iw_map_mr_sg,
    .mmap = ofl_iw_mmap,
    .mmap_free = ofl_iw_mmap_free,
    .modify_qp = ofl_iw_modify_qp,
    .poll_cq = ofl_iw_poll_cq,
    .post_recv = ofl_iw_post_recv,
    .post_send = ofl_iw_post_send,
    .query_device = ofl_iw_query_device,
    .query_gid = ofl_iw_query_gid,
    .query_pkey = ofl_iw_query_pkey,
    .query_port = ofl_iw_query_port,
    .query_qp = ofl_iw_query_qp,
    .reg_user_mr = ofl_iw_reg_user_mr,
    .req_notify_cq = ofl_iw_req_notify_cq,

    /* connection management (ofl_iw_cm.c) */
    .iw_accept = ofl_iw_accept,
    .iw_add_ref = ofl_iw_qp_add_ref,
    .iw_connect = ofl_iw_connect,
    .iw_create_listen = ofl_iw_create_listen,
    .iw_destroy_listen = ofl_iw_destroy_listen,
    .iw_get_qp = ofl_iw_get_qp,
    .iw_reject = ofl_iw_reject,
    .iw_rem_ref = ofl_iw_qp_rem_ref,

    INIT_RDMA_OBJ_SIZE(ib_cq, ofl_iw_cq, base),
    INIT_RDMA_OBJ_SIZE(ib_pd, ofl_iw_pd, base),
    INIT_RDMA_OBJ_SIZE(ib_qp, ofl_iw_qp, base),
    INIT_RDMA_OBJ_SIZE(ib_ucontext, ofl_iw_ucontext, base),
};

/* Devices that carry IP over Ethernet framing with a hardware address:
 * the GID and the node GUID are made from it. */
static bool ofl_iw_netdev_ok(const struct net_device *netdev)
{
    return netdev->type == ARPHRD_ETHER && netdev->addr_len == ETH_ALEN &&
           is_valid_ether_addr(netdev->dev_addr);
}

static struct ofl_iw_dev *ofl_iw_dev_alloc(struct net_device *netdev)
{
    struct ofl_linux_config pcfg = { 0 };
    struct ofl_iw_dev *dev;
    struct ib_device *ibdev;
    int rv;

    dev = ib_alloc_device(ofl_iw_dev, ibdev);
    if (!dev)
        return ERR_PTR(-ENOMEM);
    ibdev = &dev->ibdev;
    INIT_LIST_HEAD(&dev->list);
    xa_init_flags(&dev->cq_xa, XA_FLAGS_ALLOC1);
    xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC1);
    ida_init(&dev->pd_ida);
    spin_lock_init(&dev->lock);
    atomic_set(&dev->num_qp, 0);
    atomic_set(&dev->num_ctx, 0);
    atomic_set(&dev->num_pd, 0);
    atomic_set(&dev->num_cq, 0);
    dev->netdev = netdev;
    dev->dev_id = (u32)atomic_inc_return(&ofl_iw_dev_ids);
    ether_addr_copy(dev->mac, netdev->dev_addr);

    /* The port: the core reaches memory by physical address, page by
     * page (ofl_linux: pfn_valid, kmap_local_page): the ATT of a user
     * region holds its pinned pages' addresses (ofl_iw_mr.c), and only
     * what the TPT validated is asked for, so the window is all of it.
     * CQ events come back through notify with the CQ id as vector, QP
     * events with OFL_IW_VEC_QP | QP number. */
    pcfg.dma_base = 0;
    pcfg.dma_len = U64_MAX;
    pcfg.notify = ofl_iw_cq_notify;
    pcfg.drv = dev;
    pcfg.kernel_crc32c = true;
    ofl_linux_init(&dev->lp, &pcfg);

    ibdev->node_type = RDMA_NODE_RNIC;
    strscpy(ibdev->node_desc, OFL_IW_NODE_DESC, sizeof(ibdev->node_desc));
    addrconf_addr_eui48((u8 *)&ibdev->node_guid, dev->mac);
    ibdev->phys_port_cnt = 1;
    ibdev->num_comp_vectors = 1;
    /* libsiw rings the send queue's doorbell through post_send */
    ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
    /* The device sits under the netdev's own parent (the NIC's PCI
     * function), as a hardware iWARP driver's does, so that
     * /sys/class/infiniband/NAME/device/net/ names the netdev. DMA is
     * the core's (through the port), not the parent's: ib_register_device
     * gets no dma_device. */
    ibdev->dev.parent = netdev->dev.parent;
    memcpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
    /* The device listens on the netdev's addresses itself. */
    ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
    ib_set_device_ops(ibdev, &ofl_iw_dev_ops);
    /* from here on ib_dealloc_device calls ofl_iw_dealloc_driver */

    /* The TPT: OFL_IW_MAX_MR STags and a direct ATT. The QPs name it
     * (ofl_qp_attr.tpt); memory registration fills it. */
    dev->tpt_entries = kvcalloc(OFL_IW_MAX_MR + 1, sizeof(*dev->tpt_entries),
                                GFP_KERNEL);
    dev->att = kvcalloc(OFL_IW_ATT_SLOTS, sizeof(*dev->att), GFP_KERNEL);
    dev->att_pool_map = kvcalloc(OFL_TPT_ATT_POOL_WORDS(OFL_IW_ATT_SLOTS),
                                 sizeof(*dev->att_pool_map), GFP_KERNEL);
    dev->att_owner = kvcalloc(OFL_IW_ATT_SLOTS, sizeof(*dev->att_owner),
                              GFP_KERNEL);
    if (!dev->tpt_entries || !dev->att || !dev->att_pool_map ||
        !dev->att_owner) {
        rv = -ENOMEM;
        goto err_dealloc;
    }
    /* The ATT has owners: a registration may name only slots no other
     * entry holds (user space writes the SQ), and each MR's run of slots
     * comes from the core's pool. */
    if (ofl_tpt_init(&dev->tpt, dev->tpt_entries, OFL_IW_MAX_MR + 1,
                     dev->att, OFL_IW_ATT_SLOTS, &dev->lp.port,
                     OFL_TPT_POLICY_STANDARD) != OFL_OK ||
        ofl_tpt_att_owners(&dev->tpt, dev->att_owner,
                           OFL_IW_ATT_SLOTS) != OFL_OK ||
        ofl_tpt_att_pool_init(&dev->att_pool, dev->att_pool_map,
                              OFL_TPT_ATT_POOL_WORDS(OFL_IW_ATT_SLOTS),
                              OFL_IW_ATT_SLOTS) != OFL_OK) {
        rv = -EINVAL;
        goto err_dealloc;
    }

    /* The netdev is the device's through ofl_iw_get_netdev, not
     * ib_device_set_netdev: with that association siw's netdev notifier
     * finds this device by ib_device_get_by_netdev(netdev,
     * RDMA_DRIVER_SIW) (the driver id libsiw binds by) and takes it for a
     * struct siw_device, writing into it on NETDEV_UP, NETDEV_DOWN and
     * NETDEV_GOING_DOWN (seen 2026-11-29: the QP xarray's lock
     * overwritten). Held until dealloc_driver. */
    dev_hold(netdev);
    dev->netdev_held = true;
    return dev;

err_dealloc:
    ib_dealloc_device(ibdev);
    return ERR_PTR(rv);
}

/* rdma_link_ops.newlink: called under the core's link_ops_rwsem (read),
 * which rdma_link_unregister takes for write: none runs after it. */
static int ofl_iw_newlink(const char *name, struct net_device *netdev)
{
    struct ofl_iw_dev *dev;
    struct ib_device *other;
    int rv;

    if (!ofl_iw_netdev_ok(netdev))
        return -EINVAL;
    mutex_lock(&ofl_iw_link_lock);
    /* one iWARP device per netdev: ours or a real siw's */
    other = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
    if (!other) {
        dev = ofl_iw_dev_by_netdev(netdev);
        other = dev ? &dev->ibdev : NULL;
    }
    if (other) {
        ib_device_put(other);
        rv = -EEXIST;
        goto out_unlock;
    }
    dev = ofl_iw_dev_alloc(netdev);
    if (IS_ERR(dev)) {
        rv = PTR_ERR(dev);
        goto out_unlock;
    }

    /* On the list before registration: once registered, `rdma link
     * delete` may free the device at once; dealloc_driver takes it off. */
    mutex_lock(&ofl_iw_lock);
    list_add_tail(&dev->list, &ofl_iw_devs);
    mutex_unlock(&ofl_iw_lock);

    rv = ib_register_device(&dev->ibdev, name, NULL);
    if (rv)
        goto err_dealloc;
    /* dev is not touched again: `rdma link delete` may have freed it */
    netdev_info(netdev, "ofl_iw: %s registered (port %s)\n", name,
                ofl_iw_port_active(netdev) ? "active" : "down");
    mutex_unlock(&ofl_iw_link_lock);
    return 0;

err_dealloc:
    ib_dealloc_device(&dev->ibdev); /* calls ofl_iw_dealloc_driver */
out_unlock:
    mutex_unlock(&ofl_iw_link_lock);
    return rv;
}

static struct rdma_link_ops ofl_iw_link_ops = {
    .type = OFL_IW_LINK_TYPE,
    .newlink = ofl_iw_newlink,
};

static void ofl_iw_port_event(struct ib_device *ibdev, enum ib_event_type type)
{
    struct ib_event ev = {
        .device = ibdev,
        .event = type,
        .element.port_num = 1,
    };

    ib_dispatch_event(&ev);
}

static int ofl_iw_netdev_event(struct notifier_block *nb, unsigned long event,
                               void *arg)
{
    struct net_device *netdev = netdev_notifier_info_to_dev(arg);
    struct ib_device *ibdev;
    struct ofl_iw_dev *dev;

    dev = ofl_iw_dev_by_netdev(netdev);
    if (!dev)
        return NOTIFY_DONE;
    ibdev = &dev->ibdev;

    switch (event) {
    case NETDEV_UP:
    case NETDEV_DOWN:
    case NETDEV_CHANGE: /* carrier */
        /* query_port reads the state from the netdev; tell consumers. */
        ofl_iw_port_event(ibdev, ofl_iw_port_active(netdev) ?
                                     IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
        break;
    case NETDEV_GOING_DOWN:
        /* every QP to ERROR, its stream aborted, as siw does */
        ofl_iw_qp_all_error(dev);
        break;
    case NETDEV_CHANGEADDR:
        /* The GID and node GUID keep the address the link was made with:
         * they do not change, so no GID event; the log says so. */
        netdev_warn(netdev, "ofl_iw: %s keeps its GID %pM\n",
                    dev_name(&ibdev->dev), dev->mac);
        break;
    case NETDEV_UNREGISTER:
        /* Not here under RTNL: the core's unregistration work does it. */
        ib_unregister_device_queued(ibdev);
        break;
    default:
        break;
    }
    ib_device_put(ibdev);
    return NOTIFY_DONE;
}

static struct notifier_block ofl_iw_netdev_nb = {
    .notifier_call = ofl_iw_netdev_event,
};

/* Unregisters every device of ours, as ib_unregister_driver does for a
 * driver id of its own: a reference on the struct device keeps the memory
 * while the core's unregistration (idempotent, fenced by its own lock)
 * runs; dealloc_driver takes the device off the list. */
static void ofl_iw_unregister_all(void)
{
    struct ofl_iw_dev *dev;

    for (;;) {
        mutex_lock(&ofl_iw_lock);
        dev = list_first_entry_or_null(&ofl_iw_devs, struct ofl_iw_dev, list);
        if (dev)
            get_device(&dev->ibdev.dev);
        mutex_unlock(&ofl_iw_lock);
        if (!dev)
            break;
        ib_unregister_device(&dev->ibdev);
        put_device(&dev->ibdev.dev);
    }
}

static int __init ofl_iw_init(void)
{
    int rv;

    rv = ofl_iw_cm_init();
    if (rv)
        return rv;
    rv = register_netdevice_notifier(&ofl_iw_netdev_nb);
    if (rv) {
        ofl_iw_cm_exit();
        return rv;
    }
    rdma_link_register(&ofl_iw_link_ops);
    pr_info("ofl_iw: offload %s, link type \"%s\"\n", OFL_VERSION_STRING,
            OFL_IW_LINK_TYPE);
    return 0;
}

static void __exit ofl_iw_exit(void)
{
    /* no new link after this; none is being made (link_ops_rwsem) */
    rdma_link_unregister(&ofl_iw_link_ops);
    unregister_netdevice_notifier(&ofl_iw_netdev_nb);
    ofl_iw_unregister_all();
    ofl_iw_cm_exit();
}

module_init(ofl_iw_init);
module_exit(ofl_iw_exit);
