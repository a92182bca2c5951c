# ---- make prove: Frama-C/Eva proofs of the parsers ---------------------------
#
# Each proof/NAME.c drives one parser family with every input up to its
# maximum size (see the driver's comment); mk/prove.sh analyses it with Eva
# and fails on any alarm, error or warning, a non-terminating main, or fewer
# statements reached than recorded here (NAME:MIN). Runs one frama-c at a
# time (Eva is single-threaded and large). PROVE=name1,name2 runs a subset.
# A driver's own Eva options are on its line `/* eva: OPTIONS */`.
#
# NOT proved (drivers absent from this list; README "Proofs of the parsers"):
# the MPA stream receiver (proof/mpa_stream.c: alarms from the merged state
# of its unbounded call loop), the MPA handshake receive (proof/mpa_hs_recv.c:
# 3 alarms in ofl_copy/ofl_fill, have < want lost), ap_rx_ci's second record
# walk, push-push cells (ofl_pp_reasm_input), tuple buffers over 4,096 bytes.
# Limits of what is proved: each input lies in an array of the maximum size,
# so at a shorter len a read past len but inside the array is not an alarm
# (except ap_msg_parse, whose buffer is exactly len bytes);
# machdep x86_64 only (no 32-bit size_t analysed).
PROVE_DRIVERS := \
    rdmap_parse:354 \
    mpa_rr_parse:109 \
    dt_desc_decode:179 \
    ap_msg_parse:100 \
    pp_msg_decode:352 \
    dg_parse:102 \
    ap_udp_parse:132 \
    dt_tuples:45 \
    mpa_locate:131 \
    ap_ci_parse:164

prove:
	@command -v frama-c >/dev/null || { echo "SKIP prove: frama-c not installed (Debian: frama-c-base)"; \
	   [ "$$OFL_REQUIRE_TOOLS" != 1 ]; exit $$?; }
	@echo "== Frama-C $$(frama-c -version | head -1), Eva, machdep x86_64"
	@pass=0; fail=0; \
	 for d in $(PROVE_DRIVERS); do \
	   n=$${d%%:*}; \
	   if [ -n "$(PROVE)" ]; then case ",$(PROVE)," in *,$$n,*) ;; *) continue;; esac; fi; \
	   if sh mk/prove.sh $$n $${d##*:}; then pass=$$((pass+1)); else fail=$$((fail+1)); fi; \
	 done; \
	 echo "$$pass passed, $$fail failed"; [ $$fail = 0 ]

.PHONY: prove

## prove             Frama-C/Eva: no runtime error in the parsers for any input up to the bounds of proof/*.c
