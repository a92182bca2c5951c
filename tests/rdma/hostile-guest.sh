# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
# Guest script of tests/rdma/hostile.sh (boot.sh -L rdma -L py; ofl_iw.ko
# in /guest/extra, dummy.ko in /guest): a hostile peer against the offload
# device (issue 29 item 4). rping -s listens on ofl0 (10.0.3.1); a raw TCP
# client in python (/tmp/peer.py) does the MPA exchange (revision 1, no
# markers, CRC only in the crc-* cases) and then sends one FPDU: a well-formed Send of rping's
# buffer advertisement (the control: the device must answer with rping's
# RDMA Read Request, not a Terminate), or the same Send malformed one way.
# The device must answer with a Terminate carrying the exact RFC 5040
# cause, and rping's server must end, not hang. Then lost-in-flight: a
# pyverbs server on ofl0 sends to the peer, which reads nothing and then
# resets the connection; every Send posted must complete. One line per
# check, "ofl-host: N passed, M failed".
RDMA=/usr/bin/rdma
pass=0
fail=0
ok() { echo "ofl-host: ok   $*"; pass=$((pass + 1)); }
bad() { echo "ofl-host: FAIL $*"; fail=$((fail + 1)); }
rdma_up
dummies 1
$RDMA link add ofl0 type ofl netdev dummy0 || bad "rdma link add ofl0"
dmesg -n 1
cat >/tmp/peer.py <<'PY'
import socket, struct, sys
sys.path.insert(0, "/guest")
from ofl_crc32c import crc32c   # tests/support/ofl_crc32c.py (hostile.sh)
# argv: port, case
port, case = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("10.0.3.1", port), timeout=10)
# MPA Request, revision 1, no markers, no private data (RFC 5044 7.1);
# the crc-* cases ask for CRC (the C bit), the others do not
crc = case.startswith("crc-")
s.sendall(b"MPA ID Req Frame" + bytes([0x40 if crc else 0, 1]) + struct.pack(">H", 0))
def recvn(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += c
    return b
rep = recvn(20)
# a Reply that accepts (no R bit) and, when asked, uses CRC (C bit)
if rep[:16] != b"MPA ID Rep Frame" or rep[16] & 0x20 or bool(rep[16] & 0x40) != crc:
    print("peer: bad MPA reply", rep.hex()); sys.exit(2)
recvn(struct.unpack(">H", rep[18:20])[0])
if case == "lost-in-flight":
    # read nothing, so the device's sends stay in its send queue; when
    # the server says it has posted, reset the connection (SO_LINGER 0)
    import os, time
    for _ in range(300):
        if os.path.exists("/tmp/lif.posted"):
            break
        time.sleep(0.1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    print("peer: reset"); sys.exit(0)
# an untagged Send (RFC 5041 4.3, RFC 5040 4.3): DDP control T=0 L=1 DV=1,
# RDMAP control RV=1 opcode Send (3), QN 0, MSN 1, MO 0; payload: rping's
# struct rping_rdma_info (buf 8, rkey 4, size 4, big-endian)
ddp, rdmap, qn, msn = 0x41, 0x43, 0, 1
if case == "ddp-version": ddp = 0x42
if case == "rdmap-version": rdmap = 0x83
if case == "queue-number": qn = 5
if case == "msn-no-buffer": msn = 7
payload = struct.pack(">QII", 0x10000, 0x1234, 64)
ulpdu = bytes([ddp, rdmap]) + struct.pack(">IIII", 0, qn, msn, 0) + payload
fpdu = struct.pack(">H", len(ulpdu)) + ulpdu
fpdu += b"\0" * (-len(fpdu) % 4)   # pad
# the CRC field: zero with CRC off; with CRC on the CRC32c of the FPDU
# before it, least significant byte first (as the library and siw send
# it); crc-bad flips one bit of it
field = crc32c(fpdu) if crc else 0
if case == "crc-bad": field ^= 1
fpdu += struct.pack("<I", field)
s.sendall(fpdu)
try:
    hdr = recvn(22)
except Exception as e:
    print("peer: no answer (%s)" % e); sys.exit(3)
op = hdr[3] & 0x0F
sum_ = ""
if crc:
    # the whole answer FPDU: its CRC must be right too
    n = 2 + struct.unpack(">H", hdr[:2])[0]
    n += -n % 4
    rest = recvn(n + 4 - 22)
    whole = hdr + rest
    good = crc32c(whole[:n]) == struct.unpack("<I", whole[n:n + 4])[0]
    sum_ = "; its crc %s" % ("good" if good else "BAD")
# a Terminate's cause (RFC 5040 4.8): layer, error type, error code
what = " layer %d etype %d code %d" % (hdr[20] >> 4, hdr[20] & 0xF, hdr[21]) if op == 7 else " (not a Terminate)"
print("peer: answer rdmap opcode %d%s%s" % (op, what, sum_))
PY
# lost-in-flight's server: a pyverbs (librdmacm) QP on ofl0 that posts
# 32 Sends of 256 KiB with a send queue of 16 (and a CQ of 64) to a peer
# that reads nothing, then counts its completions (success or flushed)
# after the peer resets the connection, for 15 s. libsiw hands a ring slot back when the
# device takes its entry, so the second 16 wait in the ring behind one
# the core had no room for.
cat >/tmp/lif.py <<'PY'
import sys, time
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel
from pyverbs.cq import CQ
from pyverbs.qp import QPInitAttr, QPCap
import pyverbs.cm_enums as ce
import pyverbs.enums as e
def event(want):
    ev = CMEvent(ch)
    got = ev.event_str()
    ev.ack_cm_event()
    if want not in got:
        print("lif: cm event %s, want %s" % (got, want))
        sys.exit(1)
    return ev
ch = CMEventChannel()
lid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
lid.bind_addr(AddrInfo(src="10.0.3.1", src_service=sys.argv[1],
                       port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE))
lid.listen()
ev = CMEvent(ch)
if "CONNECT_REQUEST" not in ev.event_str():
    print("lif: cm event %s, want a connect request" % ev.event_str())
    sys.exit(1)
cid = CMID(creator=ev, listen_id=lid)
ev.ack_cm_event()
# one CQ with room for every work request: the application keeps to its
# CQ, not to its send queue's depth
cq = CQ(cid.context, 64, None, None, 0)
cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                         cap=QPCap(max_send_wr=16, max_recv_wr=1,
                                   max_send_sge=1, max_recv_sge=1)))
cid.accept()
event("ESTABLISHED")
mr = cid.reg_msgs(256 * 1024)
posted = 0
for i in range(32):
    try:
        cid.post_send(mr)
    except Exception as ex:
        print("lif: post %d refused: %s" % (i, ex))
        break
    posted += 1
print("lif: posted %d" % posted, flush=True)
open("/tmp/lif.posted", "w").close()
got, st, end = 0, {}, time.time() + 15
while got < posted and time.time() < end:
    n, wcs = cq.poll()
    if n <= 0:
        time.sleep(0.01)
        continue
    got += n
    for wc in wcs:
        st[wc.status] = st.get(wc.status, 0) + 1
    print("lif: completions %d, by status %s" % (got, sorted(st.items())),
          flush=True)
print("lif: %s %d completed" % ("all" if got == posted else "only", got),
      flush=True)
# in the order the objects depend on each other (the QP holds the CQ)
mr.close()
cid.close()
cq.close()
lid.close()
ch.close()
PY
port=7700
# hcase NAME EXPECT (an answer line to match)
hcase() {
    port=$((port + 1))
    timeout 30 rping -s -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/$1.srv 2>&1 &
    sp=$!
    wait_listening $port
    ans=$(timeout 20 python3 /tmp/peer.py $port $1 2>&1)
    i=0
    while kill -0 $sp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $sp 2>/dev/null; then ended="still running after 10 s"; kill -9 $sp; else ended="ended"; fi
    wait $sp 2>/dev/null
    # rping ends on the DISCONNECT; it counts flushed completions silently
    # (IBV_WC_WR_FLUSH_ERR is skipped in its CQ handler), so the flush
    # itself is not seen here (test-kmod-iw checks ERROR's flush into the
    # CQ ring): what is checked is that the server ends, not hangs
    d="$1: $ans; rping -s $ended"
    sed "s/^/ofl-host:      $1 rping| /" /tmp/$1.srv | head -4
    case "$ans" in *"$2"*) ;; *) bad "$d (want [$2])"; return ;; esac
    if [ "$ended" = ended ]; then ok "$d"; else bad "$d"; fi
}
# the control: a well-formed Send; rping's server reads the advertisement
# and issues its RDMA Read Request (opcode 1) to the peer
hcase control "rdmap opcode 1 (not a Terminate)"
# RFC 5040 7.1: DDP untagged (layer 1, type 2) codes 6 (version), 1 (QN),
# 2 (MSN, no buffer); RDMAP (layer 0) remote operation (type 2) code 5
hcase ddp-version "opcode 7 layer 1 etype 2 code 6"
hcase queue-number "opcode 7 layer 1 etype 2 code 1"
hcase msn-no-buffer "opcode 7 layer 1 etype 2 code 2"
hcase rdmap-version "opcode 7 layer 0 etype 2 code 5"
# with CRC agreed: the same Send with its CRC right is read (the control),
# with one bit of it wrong is refused: RFC 5044 8, LLP (layer 2) MPA error
# (type 0) code 2, CRC error; the answer's own CRC is checked in both
hcase crc-control "rdmap opcode 1 (not a Terminate); its crc good"
hcase crc-bad "opcode 7 layer 2 etype 0 code 2; its crc good"
# the connection lost with work in flight and more behind it in the ring
# (an application posting past its send queue's depth, which libsiw
# allows here: the device hands a slot back when it takes the entry):
# every Send posted completes, sent or flushed, while the QP lives
port=$((port + 1))
rm -f /tmp/lif.posted
timeout 60 python3 /tmp/lif.py $port >/tmp/lif.srv 2>&1 &
sp=$!
wait_listening $port
ans=$(timeout 40 python3 /tmp/peer.py $port lost-in-flight 2>&1)
i=0
while kill -0 $sp 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $sp 2>/dev/null
wait $sp 2>/dev/null
posted=$(sed -n 's/^lif: posted //p' /tmp/lif.srv)
last=$(grep '^lif: completions' /tmp/lif.srv | tail -1)
d="lost-in-flight: $ans; posted ${posted:-none}; ${last:-no completion}"
sed 's/^/ofl-host:      lost-in-flight| /' /tmp/lif.srv | grep -v 'lif: completions' | head -4
if [ -n "$posted" ] && [ "$posted" -gt 16 ] &&
    grep -q "^lif: all $posted completed" /tmp/lif.srv; then
    ok "$d"
else
    bad "$d (want every Send posted, more than 16, completed)"
fi
$RDMA link delete ofl0 && rmmod ofl_iw && ok "rdma link delete ofl0, rmmod ofl_iw" || bad "rdma link delete ofl0, rmmod ofl_iw"
if dmesg | grep -aqE 'WARNING|BUG|Oops|leak'; then
    bad "dmesg has a WARNING, BUG, Oops or leak"
    dmesg | grep -aE 'WARNING|BUG|Oops|leak' | head -10 | sed 's/^/ofl-host:      /'
else
    ok "dmesg has no WARNING, BUG, Oops or leak"
fi
echo "ofl-host: $pass passed, $fail failed"
