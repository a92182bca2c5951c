# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The Linux RDMA rig (included by the Makefile; README.md, "Linux RDMA rig
# (`make test-rdma`)"): Debian's kernel under QEMU (TCG) with Linux siw
# built out of tree and rdma-core's user space, against
# examples/ofl-rping on the host (posix port). The kernel is embed.mk's
# KVER / KIMAGE (the one test-kmod-boot boots).
#
#   make rdma-stage   stage the guest into build/rdma (cached): the
#                     packages, siw.ko, the initramfs (tests/rdma/stage.sh)
#   make test-rdma    the cases (tests/rdma/run.sh): one line per check,
#                     "N passed, M failed", non-zero exit on any failure
#
# tests/rdma/boot.sh boots the staged guest with any extra modules, files
# and guest script (for the kernel module's own runs).

.PHONY: rdma-stage test-rdma

## rdma-stage        stages the Linux siw guest into build/rdma (cached)
## test-rdma         ofl-rping against rdma-core's rping on Linux siw (QEMU)

RDMA_BUILD ?= build/rdma

rdma-stage:
	@[ -n "$(KVER)" ] && [ -f $(KDIR)/Makefile ] && [ -r $(KIMAGE) ] || { \
	    echo "rdma-stage: no kernel with headers and image (apt-get install linux-headers-amd64 linux-image-amd64)"; exit 1; }
	@sh tests/rdma/stage.sh $(RDMA_BUILD) $(KVER)

test-rdma: rdma-stage $(BUILD)/examples/ofl-rping
	@for t in qemu-system-x86_64 tshark cpio; do command -v $$t >/dev/null || { \
	    echo "test-rdma: $$t missing (apt-get install qemu-system-x86 tshark cpio)"; exit 1; }; done
	@echo "== test-rdma: $(KIMAGE) under qemu-system-x86_64 -accel tcg, siw, rdma-core's rping <-> $(BUILD)/examples/ofl-rping"
	@t0=$$(date +%s); rc=0; \
	 sh tests/rdma/run.sh $(KIMAGE) $(RDMA_BUILD) $(BUILD)/examples/ofl-rping || rc=$$?; \
	 echo "test-rdma: $$(( $$(date +%s) - t0 ))s (logs: $(RDMA_BUILD)/run)"; exit $$rc
