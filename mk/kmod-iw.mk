# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The Linux RDMA device (included by the Makefile after mk/embed.mk, whose
# section 3 finds the kernel: KVER, KDIR, KIMAGE, KM_W).
#   kmod-iw        builds build/kmod-iw/ofl_iw.ko with kbuild (W=1): the core
#                  (unchanged), the port and ports/linux/iw/, every file
#                  warning-free
#   test-kmod-iw   boots the Debian kernel under QEMU in the shared guest
#                  (mk/guest.mk, rdma layer) with an e1000 NIC, loads the
#                  RDMA core's modules and ofl_iw.ko, runs
#                  ports/linux/iw/boot.sh (`rdma link add`, sysfs,
#                  ibv_devinfo through libsiw, `rdma link delete`,
#                  rmmod) and reads its "N passed, M failed" line
#   test-rdma-device  boots the guest with siw and ofl_iw.ko (tests/rdma/
#                  device.sh, device-guest.sh): stock rping -V through
#                  the device against siw in both roles and against a
#                  second offload device, 100 rounds, 64 B and 64 KiB;
#                  OFL_DEV_FAULT=no-nudge adds the planted case that must
#                  fail
#   test-uring     the user-ring translation (ports/linux/iw/ofl_iw_uring.c)
#                  built and tested in user space
.PHONY: kmod-iw test-kmod-iw test-uring test-rdma-device test-rdma-pyverbs bench-rdma test-rdma-hostile test-rdma-nvme

## kmod-iw           build/kmod-iw/ofl_iw.ko, the iWARP RDMA device, by kbuild (W=1)
## test-kmod-iw      boots Debian's kernel in QEMU and runs ofl_iw.ko (rdma link, ibv_devinfo)
## test-uring        the user-ring translation of ports/linux/iw, tested in user space
## test-rdma-device  rdma-core's rping -V through ofl_iw.ko in QEMU: offload <-> siw both ways, offload <-> offload
## bench-rdma        perftest -R (write/read/send bw, send/write lat) in QEMU: offload and siw pairs, ratios to siw <-> siw
## test-rdma-hostile a raw MPA peer sends malformed FPDUs to rping -s on ofl_iw.ko in QEMU: exact Terminates; hostile connection set-ups
## test-rdma-nvme    NVMe over RDMA (nvmet-rdma, nvme-rdma, nvme-cli) through ofl_iw.ko and siw in QEMU: data written = read
## test-rdma-pyverbs rdma-core's own test suite (pyverbs) in QEMU against siw and ofl_iw.ko: tallies and checks

IW_BUILD := build/kmod-iw
IW_SRC   := $(IW_BUILD)/src

kmod-iw:
	@[ -n "$(KVER)" ] && [ -f $(KDIR)/Makefile ] || { \
	    echo "kmod-iw: no kernel headers with a matching /boot/vmlinuz-* (apt-get install linux-headers-amd64 linux-image-amd64)"; exit 1; }
	@rm -rf $(IW_SRC); mkdir -p $(IW_SRC)
	@cp offload.c offload.h ports/linux/ofl_linux.[ch] $(IW_SRC)/
	@cp ports/linux/iw/Kbuild ports/linux/iw/*.[ch] $(IW_SRC)/
	@echo "== kbuild ofl_iw.ko against $(KDIR) (W=$(KM_W))"
	@rc=0; env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL \
	    make -C $(KDIR) M=$(CURDIR)/$(IW_SRC) W=$(KM_W) -j2 modules > $(IW_BUILD)/kbuild.log 2>&1 || rc=$$?; \
	 grep -E '^ *(CC|LD) \[M\]' $(IW_BUILD)/kbuild.log; \
	 [ $$rc -eq 0 ] || { cat $(IW_BUILD)/kbuild.log; echo "kmod-iw: kbuild failed"; exit 1; }
	@if grep -E '(warning|error):' $(IW_BUILD)/kbuild.log; then \
	    echo "kmod-iw: not warning-free under the kernel's flags (W=$(KM_W))"; exit 1; fi
	@cp $(IW_SRC)/ofl_iw.ko $(IW_SRC)/ofl_iw_ktest.ko $(IW_SRC)/ofl_iw_kconn.ko $(IW_BUILD)/
	@modinfo $(IW_BUILD)/ofl_iw.ko 2>/dev/null | grep -E '^(vermagic|license|depends|alias)' || true
	@echo "kmod-iw: built $(IW_BUILD)/ofl_iw.ko for $(KVER), warning-free (W=$(KM_W))"

# The guest: the one every boot shares (mk/guest.mk) with its rdma layer
# (the RDMA core's modules and e1000 from the booted kernel's own package,
# iproute2's rdma, libibverbs1, libsiw, ibv_devinfo and their libraries,
# from Debian packages: apt-get download, dpkg -x, nothing installed),
# plus ofl_iw.ko, ofl_iw_ktest.ko and ofl_iw_probe (built on the host
# against libibverbs-dev); ports/linux/iw/boot.sh loads the modules itself.
$(IW_BUILD)/ofl_iw_probe: ports/linux/iw/ofl_iw_probe.c
	@[ -f /usr/include/infiniband/verbs.h ] || { \
	    echo "test-kmod-iw: libibverbs headers missing (apt-get install libibverbs-dev)"; exit 1; }
	@mkdir -p $(IW_BUILD)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $< -o $@ -libverbs

test-kmod-iw: kmod-iw $(IW_BUILD)/ofl_iw_probe rdma-stage
	@rc=0; $(GUEST_BOOT) -L rdma -M 1536 -l $(IW_BUILD)/boot.log \
	    -m $(IW_BUILD)/ofl_iw.ko -m $(IW_BUILD)/ofl_iw_ktest.ko \
	    -f $(IW_BUILD)/ofl_iw_probe:/ofl_iw_probe \
	    $(KIMAGE) $(GUEST) ports/linux/iw/boot.sh || rc=$$?; \
	 tr -d '\r' < $(IW_BUILD)/boot.log | grep -aE '^(ofl-boot|ofl-iw):'; \
	 last=$$(tr -d '\r' < $(IW_BUILD)/boot.log | grep -aE '^ofl-iw: [0-9]+ passed, [0-9]+ failed$$' | tail -1); \
	 if [ -z "$$last" ] || ! echo "$$last" | grep -q ', 0 failed$$'; then \
	     echo "test-kmod-iw: FAILED (qemu exit $$rc; full console in $(IW_BUILD)/boot.log)"; \
	     tail -40 $(IW_BUILD)/boot.log; exit 1; fi; \
	 echo "test-kmod-iw: ok ($${last#ofl-iw: })"

# The user-ring translation in user space (plain C: offload.h and
# <rdma/siw-abi.h> from linux-libc-dev), with ASan and UBSan.
UR_BUILD := build/uring
$(UR_BUILD)/tests: ports/linux/iw/test_iw_uring.c ports/linux/iw/ofl_iw_uring.[ch] \
                   tests/main.c tests/test.h offload.c offload.h
	$(call ofl_suites_h,ports/linux/iw/test_iw_uring.c,$(UR_BUILD)/suites.h)
	$(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -I. -Itests -Iports/linux/iw -I$(UR_BUILD) tests/main.c \
	    ports/linux/iw/test_iw_uring.c ports/linux/iw/ofl_iw_uring.c offload.c -o $@

test-uring: $(UR_BUILD)/tests
	@$< | tail -2
	@$< > /dev/null

test-rdma-device: kmod-iw rdma-stage
	@sh tests/rdma/device.sh $(KIMAGE) $(GUEST) $(IW_BUILD) $(IW_BUILD)/ofl_iw.ko

# rdma-core's own tests (issue 29 item 1): needs the host's python3.11 and
# libpython3.11 (the interpreter staged into the guest, mk/guest/stage-py.sh)
test-rdma-pyverbs: kmod-iw rdma-stage
	@sh mk/guest/stage-py.sh $(GUEST)
	@sh tests/rdma/pyverbs.sh $(KIMAGE) $(GUEST) $(IW_BUILD) $(IW_BUILD)/ofl_iw.ko

# perftest through the device beside siw (issue 25 item 8, issue 29 item 5)
bench-rdma: kmod-iw rdma-stage
	@sh tests/rdma/perf.sh $(KIMAGE) $(GUEST) $(IW_BUILD) $(IW_BUILD)/ofl_iw.ko

# NVMe over RDMA, a kernel consumer (issue 29 item 2): the nvme layer
# (mk/guest/stage-nvme.sh) carries the kernel's NVMe modules and nvme-cli
test-rdma-nvme: kmod-iw rdma-stage
	@sh mk/guest/stage-nvme.sh $(GUEST) $(KVER)
	@sh tests/rdma/nvme.sh $(KIMAGE) $(GUEST) $(IW_BUILD) $(IW_BUILD)/ofl_iw.ko

# a hostile peer (issue 29 item 4): the python layer carries the raw client
test-rdma-hostile: kmod-iw rdma-stage
	@sh mk/guest/stage-py.sh $(GUEST)
	@sh tests/rdma/hostile.sh $(KIMAGE) $(GUEST) $(IW_BUILD) $(IW_BUILD)/ofl_iw.ko
