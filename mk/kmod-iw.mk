# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The Linux RDMA device (included by the Makefile after mk/embed.mk, whose
# section 3 finds the kernel: KVER, KDIR, KIMAGE, KM_W).
#   kmod-iw        builds build/kmod-iw/ofl_iw.ko with kbuild (W=1): the core
#                  (unchanged), the port and ports/linux/iw/, every file
#                  warning-free
#   test-kmod-iw   boots the Debian kernel under QEMU with an e1000 NIC,
#                  loads the RDMA core's modules and ofl_iw.ko, runs
#                  ports/linux/iw/boot.sh (`rdma link add`, sysfs,
#                  ibv_devinfo through libsiw, `rdma link delete`,
#                  rmmod) and reads its "N passed, M failed" line
#   test-uring     the user-ring translation (ports/linux/iw/ofl_iw_uring.c)
#                  built and tested in user space
.PHONY: kmod-iw test-kmod-iw test-uring

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
	@cp $(IW_SRC)/ofl_iw.ko $(IW_BUILD)/
	@modinfo $(IW_BUILD)/ofl_iw.ko 2>/dev/null | grep -E '^(vermagic|license|depends|alias)' || true
	@echo "kmod-iw: built $(IW_BUILD)/ofl_iw.ko for $(KVER), warning-free (W=$(KM_W))"
