# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The QEMU guest (included by the Makefile after mk/embed.mk, whose section
# 3 finds the kernel: KVER, KDIR, KIMAGE, KM_QEMU_ACCEL) and the Linux RDMA
# rig (README.md, "Linux RDMA rig (`make test-rdma`)"). One guest for
# every boot: mk/guest/stage.sh stages it into build/guest (cached, each
# piece rebuilt when its inputs change), mk/guest/boot.sh boots Debian's
# kernel with it under qemu-system-x86_64 (TCG, e1000 on slirp) with a
# guest script, extra modules and files, hostfwd rules and a hard time
# limit, and leaves the serial console in a log.
#
#   make guest-stage  the base layer: busybox, /init, the helpers
#                     (test-kmod-boot)
#   make rdma-stage   and the rdma layer: the RDMA modules, siw built out
#                     of tree, rdma-core's user space from Debian packages
#                     (test-kmod-iw, the test-rdma rigs)
#   make test-rdma-posix  examples/ofl-rping on the host against
#                     rdma-core's rping on siw in the guest
#                     (tests/rdma/run.sh): one line per check, "N passed,
#                     M failed", non-zero exit on any failure
#   make test-rdma    every Linux RDMA rig in turn (mk/test-rdma.sh): the
#                     posix one above and the device's (mk/kmod-iw.mk), one
#                     line per rig and the summed "N passed, M failed"

.PHONY: guest-stage rdma-stage test-rdma test-rdma-posix

## guest-stage       stages the QEMU guest's base layer into build/guest (cached)
## rdma-stage        stages the guest's RDMA layer: siw, rdma-core (cached)
## test-rdma         every Linux RDMA rig in turn (posix, kmod-iw, device, pyverbs, hostile, nvme): one total
## test-rdma-posix   ofl-rping (posix port) against rdma-core's rping on Linux siw (QEMU)

GUEST      ?= build/guest
GUEST_BOOT := KM_QEMU_ACCEL="$(KM_QEMU_ACCEL)" sh mk/guest/boot.sh
RDMA_BUILD ?= build/rdma

guest-stage:
	@sh mk/guest/stage.sh $(GUEST) $(or $(KVER),none)

rdma-stage:
	@[ -n "$(KVER)" ] && [ -f $(KDIR)/Makefile ] && [ -r $(KIMAGE) ] || { \
	    echo "rdma-stage: no kernel with headers and image (apt-get install linux-headers-amd64 linux-image-amd64)"; exit 1; }
	@sh mk/guest/stage.sh $(GUEST) $(KVER) rdma

# OFL_RDMA_RIGS="test-rdma-device ..." runs only those rigs
test-rdma:
	@echo "== test-rdma: every Linux RDMA rig in turn (logs: $(RDMA_BUILD)/all)"
	@sh mk/test-rdma.sh $(RDMA_BUILD)/all $(MAKE) --no-print-directory CC="$(CC)"

test-rdma-posix: rdma-stage $(BUILD)/examples/ofl-rping
	@for t in qemu-system-x86_64 tshark cpio; do command -v $$t >/dev/null || { \
	    echo "test-rdma-posix: $$t missing (apt-get install qemu-system-x86 tshark cpio)"; exit 1; }; done
	@echo "== test-rdma-posix: $(KIMAGE) under qemu-system-x86_64 -accel tcg, siw, rdma-core's rping <-> $(BUILD)/examples/ofl-rping"
	@t0=$$(date +%s); rc=0; \
	 KM_QEMU_ACCEL="$(KM_QEMU_ACCEL)" sh tests/rdma/run.sh $(KIMAGE) $(GUEST) $(RDMA_BUILD) $(BUILD)/examples/ofl-rping || rc=$$?; \
	 if [ $$rc = 3 ]; then \
	   rm -rf $(RDMA_BUILD)/run-peer-fault; mv $(RDMA_BUILD)/run $(RDMA_BUILD)/run-peer-fault; \
	   echo "test-rdma-posix: every failure above was a corrupt FPDU from siw (logs kept in $(RDMA_BUILD)/run-peer-fault); booting the rig once more, whose result stands"; \
	   rc=0; KM_QEMU_ACCEL="$(KM_QEMU_ACCEL)" sh tests/rdma/run.sh $(KIMAGE) $(GUEST) $(RDMA_BUILD) $(BUILD)/examples/ofl-rping || rc=$$?; \
	 fi; \
	 echo "test-rdma-posix: $$(( $$(date +%s) - t0 ))s (logs: $(RDMA_BUILD)/run)"; exit $$rc
