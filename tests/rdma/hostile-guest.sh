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
# resets the connection; every Send posted must complete. Then the
# connection set-ups of a hostile party: early-data (the device as
# initiator, the peer's first Send in the segment of its MPA Reply),
# reset-live (RESET on a connected QP), foreign-qp (a process names
# another connection's QP number to connect with), silent-peers
# (connections that never speak MPA against the listener's cap),
# refused-request (a request the iw_cm refuses resets its connection and
# leaves no end point). One line
# per check, "ofl-host: N passed, M failed".
RDMA=/usr/bin/rdma
pass=0
fail=0
ok() { echo "ofl-host: ok   $*"; pass=$((pass + 1)); }
bad() { echo "ofl-host: FAIL $*"; fail=$((fail + 1)); }
rdma_up
dummies 1
$RDMA link add ofl0 type ofl netdev dummy0 || bad "rdma link add ofl0"
dmesg -n 1
# what the raw MPA peers share: exact reads, and an FPDU around a ULPDU
cat >/tmp/rawmpa.py <<'PY'
import struct, sys
sys.path.insert(0, "/guest")
from ofl_crc32c import crc32c   # tests/support/ofl_crc32c.py (hostile.sh)
def recvn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += c
    return b
# the FPDU of a ULPDU (RFC 5044 4): length, ULPDU, pad, then the CRC
# field: zero with CRC off; with CRC on the CRC32c of what is before it,
# least significant byte first (as the library and siw send it), flip
# XORed into it
def fpdu(ulpdu, crc, flip=0):
    f = struct.pack(">H", len(ulpdu)) + ulpdu
    f += b"\0" * (-len(f) % 4)
    return f + struct.pack("<I", (crc32c(f) if crc else 0) ^ flip)
PY
cat >/tmp/peer.py <<'PY'
import socket, struct, sys
sys.path.insert(0, "/tmp")
from rawmpa import crc32c, recvn, fpdu
# argv: port, case
port, case = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("10.0.3.1", port), timeout=10)
# MPA Request, revision 1, no markers, no private data (RFC 5044 7.1);
# the crc-* cases ask for CRC (the C bit), the others do not
crc = case.startswith("crc-")
s.sendall(b"MPA ID Req Frame" + bytes([0x40 if crc else 0, 1]) + struct.pack(">H", 0))
rep = recvn(s, 20)
# a Reply that accepts (no R bit) and, when asked, uses CRC (C bit)
if rep[:16] != b"MPA ID Rep Frame" or rep[16] & 0x20 or bool(rep[16] & 0x40) != crc:
    print("peer: bad MPA reply", rep.hex()); sys.exit(2)
recvn(s, struct.unpack(">H", rep[18:20])[0])
if case == "hold":
    # reads what the device sends for up to 25 s or until /tmp/hold.stop,
    # then closes; prints the bytes that came
    import os, time
    s.settimeout(0.2)
    got, end = 0, time.time() + 25
    while time.time() < end and not os.path.exists("/tmp/hold.stop"):
        try:
            c = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:   # reset: the bytes read before it are counted
            break
        if not c:
            break
        got += len(c)
    s.close()
    print("peer: held, got %d bytes" % got); sys.exit(0)
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
# crc-bad flips one bit of the CRC field
s.sendall(fpdu(ulpdu, crc, 1 if case == "crc-bad" else 0))
try:
    hdr = recvn(s, 22)
except Exception as e:
    print("peer: no answer (%s)" % e); sys.exit(3)
op = hdr[3] & 0x0F
sum_ = ""
if crc:
    # the whole answer FPDU: its CRC must be right too
    n = 2 + struct.unpack(">H", hdr[:2])[0]
    n += -n % 4
    rest = recvn(s, n + 4 - 22)
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
# A raw MPA responder (for the device as initiator) on 10.0.3.1: takes one
# connection, reads the Request, accepts it with a revision 1 Reply (the
# CRC as the Request asks, no markers) and, with "early", an untagged Send
# of 64 bytes (QN 0, MSN 1) in the same write; then holds the connection
# for up to 20 s.
cat >/tmp/resp.py <<'PY'
import socket, struct, sys, time
sys.path.insert(0, "/tmp")
from rawmpa import recvn, fpdu
port, mode = int(sys.argv[1]), sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("10.0.3.1", port))
ls.listen(1)
open("/tmp/resp.%d.up" % port, "w").close()
ls.settimeout(20)
s, _ = ls.accept()
s.settimeout(20)
req = recvn(s, 20)
if req[:16] != b"MPA ID Req Frame" or req[16] & 0x80:
    print("resp: bad or marker-asking request", req.hex()); sys.exit(2)
recvn(s, struct.unpack(">H", req[18:20])[0])
crc = bool(req[16] & 0x40)
# with "early" the Reply carries 300 bytes of private data (MPA allows
# 512; the iw_cm's event 255)
pd = bytes(i % 251 for i in range(300)) if mode == "early" else b""
out = b"MPA ID Rep Frame" + bytes([0x40 if crc else 0, 1]) + struct.pack(">H", len(pd)) + pd
if mode == "early":
    out += fpdu(bytes([0x41, 0x43]) + struct.pack(">IIII", 0, 0, 1, 0) +
                bytes(range(64)), crc)
s.sendall(out)
print("resp: replied%s" % (" with a Send behind" if mode == "early" else ""), flush=True)
end = time.time() + 20
s.settimeout(0.2)
while time.time() < end:
    try:
        if not s.recv(65536):
            break
    except socket.timeout:
        continue
    except OSError:
        break
s.close()
PY
# The device as initiator: a pyverbs (librdmacm) client on ofl0 with one
# receive posted before connect; prints the receive's completion.
cat >/tmp/ini.py <<'PY'
import sys, time
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel
from pyverbs.cq import CQ
from pyverbs.qp import QPInitAttr, QPCap
import pyverbs.cm_enums as ce
import pyverbs.enums as e
ch = CMEventChannel()
def event(want):
    ev = CMEvent(ch)
    got = ev.event_str()
    pd = ev.private_data
    ev.ack_cm_event()
    if want not in got:
        print("ini: cm event %s, want %s" % (got, want)); sys.exit(1)
    return pd
cid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
cid.resolve_addr(AddrInfo(src="10.0.3.1", dst="10.0.3.1", dst_service=sys.argv[1],
                          port_space=ce.RDMA_PS_TCP))
event("ADDR_RESOLVED")
cid.resolve_route()
event("ROUTE_RESOLVED")
cq = CQ(cid.context, 8, None, None, 0)
cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                         cap=QPCap(max_send_wr=4, max_recv_wr=4,
                                   max_send_sge=1, max_recv_sge=1)))
mr = cid.reg_msgs(256)
cid.post_recv(mr)
cid.connect()
pd = event("ESTABLISHED")
print("ini: private data %d bytes%s;" % (len(pd), ", as sent" if pd == bytes(i % 251 for i in range(len(pd))) else " WRONG"), end=" ")
end = time.time() + 5
while time.time() < end:
    n, wcs = cq.poll()
    if n > 0:
        wc = wcs[0]
        print("ini: receive completed, status %d, %d bytes, data %s" %
              (wc.status, wc.byte_len,
               "as sent" if mr.read(64, 0) == bytes(range(64)) else "WRONG"))
        break
    time.sleep(0.01)
else:
    print("ini: no receive completion in 5 s")
mr.close()
cid.close()
cq.close()
ch.close()
PY
# A server on ofl0 whose QP is its own (created with ibv_create_qp, named
# to rdma_accept by its number, so that it can be modified): reset-live
# tries RESET on the connected QP, then ERROR, then RESET, and times the
# destroy; foreign waits for /tmp/qps.go (another process's connect that
# named this QP's number) and then sends 64 bytes on it.
cat >/tmp/qps.py <<'PY'
import sys, time, os
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel, ConnParam
from pyverbs.cq import CQ
from pyverbs.qp import QP, QPInitAttr, QPCap, QPAttr
from pyverbs.wr import SendWR, SGE
import pyverbs.cm_enums as ce
import pyverbs.enums as e
port, case = sys.argv[1], sys.argv[2]
ch = CMEventChannel()
lid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
lid.bind_addr(AddrInfo(src="10.0.3.1", src_service=port,
                       port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE))
lid.listen()
ev = CMEvent(ch)
if "CONNECT_REQUEST" not in ev.event_str():
    print("qps: cm event %s, want a connect request" % ev.event_str()); sys.exit(1)
cid = CMID(creator=ev, listen_id=lid)
ev.ack_cm_event()
cq = CQ(cid.context, 16, None, None, 0)
qp = QP(cid.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4,
                                     max_send_sge=1, max_recv_sge=1)))
cid.accept(ConnParam(qp_num=qp.qp_num))
ev = CMEvent(ch)
got = ev.event_str()
ev.ack_cm_event()
if "ESTABLISHED" not in got:
    print("qps: cm event %s, want ESTABLISHED" % got); sys.exit(1)
print("qps: established, qp %d" % qp.qp_num, flush=True)
def modify(state, name):
    try:
        qp.modify(QPAttr(qp_state=state), e.IBV_QP_STATE)
        print("qps: %s accepted" % name, flush=True)
    except Exception as ex:
        print("qps: %s refused" % name, flush=True)
if case == "reset-live":
    modify(e.IBV_QPS_RESET, "RESET while connected")
    modify(e.IBV_QPS_ERR, "ERROR")
    modify(e.IBV_QPS_RESET, "RESET after ERROR")
    t0 = time.time()
    qp.close()
    print("qps: destroy took %.1f s" % (time.time() - t0), flush=True)
else:
    with open("/tmp/qps.qpn.tmp", "w") as f:
        f.write("%d" % qp.qp_num)
    os.rename("/tmp/qps.qpn.tmp", "/tmp/qps.qpn")
    for _ in range(300):
        if os.path.exists("/tmp/qps.go"):
            break
        time.sleep(0.1)
    mr = cid.reg_msgs(64)
    qp.post_send(SendWR(wr_id=7, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf, 64, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    end = time.time() + 5
    while time.time() < end:
        n, wcs = cq.poll()
        if n > 0:
            print("qps: send completed, status %d" % wcs[0].status, flush=True)
            break
        time.sleep(0.01)
    else:
        print("qps: no send completion in 5 s", flush=True)
    time.sleep(1)  # the peer reads it before the destroy resets the stream
    open("/tmp/hold.stop", "w").close()
    qp.close()
    mr.close()
cid.close()
cq.close()
lid.close()
ch.close()
PY
# Another process connects with the number of the QP qps.py holds (the
# iw_cm finds a QP by the number the connection parameters name).
cat >/tmp/foreign.py <<'PY'
import sys, time
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel, ConnParam
import pyverbs.cm_enums as ce
ch = CMEventChannel()
cid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
cid.resolve_addr(AddrInfo(src="10.0.3.1", dst="10.0.3.1", dst_service=sys.argv[1],
                          port_space=ce.RDMA_PS_TCP))
for want in ("ADDR_RESOLVED", "ROUTE_RESOLVED"):
    ev = CMEvent(ch)
    got = ev.event_str()
    ev.ack_cm_event()
    if want not in got:
        print("foreign: cm event %s, want %s" % (got, want)); sys.exit(1)
    if want == "ADDR_RESOLVED":
        cid.resolve_route()
try:
    cid.connect(ConnParam(qp_num=int(sys.argv[2])))
    ev = CMEvent(ch)
    print("foreign: connect naming qp %s: %s" % (sys.argv[2], ev.event_str()))
    ev.ack_cm_event()
except Exception as ex:
    print("foreign: connect naming qp %s refused: %s" % (sys.argv[2], ex))
cid.close()
ch.close()
PY
# wait_file F N: until file F exists, at most N tenths of a second
wait_file() {
    i=0
    while [ ! -e "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
}
# end_proc PID N: the process's end, at most N tenths of a second, then
# it is killed
end_proc() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
# early-data: the peer's first message comes in the same segment as its
# MPA Reply, and then the peer waits: the device (initiator) must still
# deliver it (it waited for a socket event that never came)
port=$((port + 1))
rm -f /tmp/resp.$port.up
timeout 30 python3 /tmp/resp.py $port early >/tmp/early.resp 2>&1 &
rp=$!
wait_file /tmp/resp.$port.up 50
ans=$(timeout 30 python3 /tmp/ini.py $port 2>&1)
kill $rp 2>/dev/null
wait $rp 2>/dev/null
d="early-data: $ans; $(cat /tmp/early.resp)"
case "$ans" in
*"private data 255 bytes, as sent; ini: receive completed, status 0, 64 bytes, data as sent"*) ok "$d" ;;
*) bad "$d (want the Send that came with the Reply received, and the Reply's 300 bytes of private data as their first 255)" ;;
esac
# reset-live: RESET on a connected QP is refused (offload.h: reset a live
# QP through ERROR), ERROR then RESET is allowed, and the destroy does not
# wait for the peer (which holds the connection open for 25 s)
port=$((port + 1))
rm -f /tmp/hold.stop
timeout 60 python3 /tmp/qps.py $port reset-live >/tmp/rl.srv 2>&1 &
sp=$!
wait_listening $port
timeout 40 python3 /tmp/peer.py $port hold >/tmp/rl.peer 2>&1 &
pp=$!
end_proc $sp 300
touch /tmp/hold.stop
wait $pp 2>/dev/null
d="reset-live: $(grep -v '^qps: established' /tmp/rl.srv | tr '\n' ' ')"
if grep -q "RESET while connected refused" /tmp/rl.srv &&
    grep -q "ERROR accepted" /tmp/rl.srv &&
    grep -q "RESET after ERROR accepted" /tmp/rl.srv &&
    awk '/^qps: destroy took/ { exit !($4 + 0 < 5) } END { if (NR == 0) exit 1 }' /tmp/rl.srv &&
    grep -q "^qps: destroy took" /tmp/rl.srv; then
    ok "$d"
else
    bad "$d (want RESET refused while connected, ERROR then RESET allowed, destroy under 5 s)"
fi
# foreign-qp: a process connects naming the number of a QP another
# connection holds; the handshake goes through, the QP refuses it, and
# the holder's connection must stay its own: a Send on it still goes out
port=$((port + 1))
p2=$((port + 100))
rm -f /tmp/hold.stop /tmp/qps.qpn /tmp/qps.go /tmp/resp.$p2.up
timeout 60 python3 /tmp/qps.py $port foreign >/tmp/fq.srv 2>&1 &
sp=$!
wait_listening $port
timeout 40 python3 /tmp/peer.py $port hold >/tmp/fq.peer 2>&1 &
pp=$!
wait_file /tmp/qps.qpn 100
timeout 30 python3 /tmp/resp.py $p2 accept >/tmp/fq.resp 2>&1 &
rp=$!
wait_file /tmp/resp.$p2.up 50
fans=$(timeout 20 python3 /tmp/foreign.py $p2 "$(cat /tmp/qps.qpn 2>/dev/null)" 2>&1)
touch /tmp/qps.go
end_proc $sp 200
touch /tmp/hold.stop
wait $pp 2>/dev/null
kill $rp 2>/dev/null
wait $rp 2>/dev/null
d="foreign-qp: $fans; $(grep -v '^qps: established' /tmp/fq.srv | tr '\n' ' ') $(cat /tmp/fq.peer)"
if grep -q "send completed, status 0" /tmp/fq.srv &&
    grep -qE "peer: held, got [1-9][0-9]* bytes" /tmp/fq.peer; then
    ok "$d"
else
    bad "$d (want the holder's Send completed and received by its peer)"
fi
# silent-peers: connections that never send an MPA byte hold no more than
# the listener's cap of handshakes (rping's backlog is 3: the cap is
# OFL_IW_HANDSHAKES_MIN, 16, of about 320 KiB each), not one per
# connection; once they close, the listener takes connections again (a
# child that leaves kicks a listener that stopped at its cap): a real
# rping client then completes against the same server
cat >/tmp/silent.py <<'PY'
import socket, sys, os, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("10.0.3.1", port))
    socks.append(s)
    time.sleep(0.02)  # paced: the listen socket's own backlog (3) never fills
time.sleep(3)
up = 0
for s in socks:
    try:
        s.getpeername()
        up += 1
    except OSError:
        pass
print("silent: %d of %d connected" % (up, n), flush=True)
open("/tmp/silent.up", "w").close()
for _ in range(300):
    if os.path.exists("/tmp/silent.stop"):
        break
    time.sleep(0.1)
for s in socks:
    s.close()
print("silent: %d connections opened and closed" % n)
PY
port=$((port + 1))
rm -f /tmp/silent.up /tmp/silent.stop
timeout 90 rping -s -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/sp.srv 2>&1 &
sp=$!
wait_listening $port
before=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
timeout 60 python3 /tmp/silent.py $port 120 >/tmp/sp.peers 2>&1 &
pp=$!
wait_file /tmp/silent.up 100
after=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
touch /tmp/silent.stop
wait $pp 2>/dev/null
used=$(( (before - after) / 1024 ))
timeout 40 rping -c -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/sp.cli 2>&1
crc=$?
end_proc $sp 100
d="silent-peers: $(head -1 /tmp/sp.peers), MemAvailable down $used MiB; then rping -c rc $crc"
if [ "$used" -lt 16 ] && [ $crc -eq 0 ]; then
    ok "$d"
else
    bad "$d (want under 16 MiB held, and the client served after)"
fi
# refused-request: the iw_cm refuses a connection request when a
# listener's events come faster than its work queue takes them
# (cm_event_handler in iwcm.c, -ENOMEM), which no test makes happen at
# will: the rig plants two such refusals (rig_refuse_requests). Each
# refused request must reset its connection at once (the client's
# connect fails then, not at its 10 s MPA deadline) and leave no end
# point behind (the device's ceps count); the server then serves the
# next client
port=$((port + 1))
P=/sys/module/ofl_iw/parameters
timeout 60 rping -s -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/rr.srv 2>&1 &
sp=$!
wait_listening $port
echo 2 >$P/rig_refuse_requests
t0=$(date +%s)
timeout 30 rping -c -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/rr.c1 2>&1
rc1=$?
timeout 30 rping -c -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/rr.c2 2>&1
rc2=$?
took=$(($(date +%s) - t0))
left=$(cat $P/rig_refuse_requests)
timeout 40 rping -c -a 10.0.3.1 -p $port -C 1 -S 64 >/tmp/rr.c3 2>&1
rc3=$?
echo 0 >$P/rig_refuse_requests
end_proc $sp 100
i=0
while [ "$(cat $P/ceps)" != 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ceps=$(cat $P/ceps)
d="refused-request: two refused clients rc $rc1 and $rc2 in $took s (refusals left $left), then rping -c rc $rc3; end points alive after: $ceps"
if [ $rc1 -ne 0 ] && [ $rc2 -ne 0 ] && [ "$took" -lt 8 ] &&
    [ "$left" = 0 ] && [ $rc3 -eq 0 ] && [ "$ceps" = 0 ]; then
    ok "$d"
else
    bad "$d (want both refused at once, the third served, no end point left)"
fi
$RDMA link delete ofl0 && rmmod ofl_iw && ok "rdma link delete ofl0, rmmod ofl_iw" || bad "rdma link delete ofl0, rmmod ofl_iw"
if dmesg | grep -aqE 'WARNING|BUG|Oops|leak'; then
    bad "dmesg has a WARNING, BUG, Oops or leak"
    dmesg | grep -aE 'WARNING|BUG|Oops|leak' | head -10 | sed 's/^/ofl-host:      /'
else
    ok "dmesg has no WARNING, BUG, Oops or leak"
fi
echo "ofl-host: $pass passed, $fail failed"
