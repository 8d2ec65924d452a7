#!/usr/bin/env python3
# Raw wakebench protocol peer for the server tests (loopback only).
#   peer.py fair PORT N SVC_US     a client pipelines N requests of SVC_US
#                                  service; 50 ms later a second client
#                                  sends one 0 us request: prints its
#                                  latency in ms ("latency_ms X")
#   peer.py hold PORT N SECONDS    one connection checked to get replies,
#                                  then N more opened and held SECONDS; the
#                                  first must still get a reply ("ok")
import socket, struct, sys, time

HDR = 56
MAGIC = 0x31424b57


def req(seq, service_ns):
    # magic, version, type REQUEST, flags, seq, send_ns, service_ns,
    # recv_ns, send_ns, payload_len, reserved
    return struct.pack('<IBBHQQQQQII', MAGIC, 1, 1, 0, seq,
                       time.monotonic_ns(), service_ns, 0, 0, 0, 0)


def conn(port):
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def reply(s, seq):
    buf = b''
    while len(buf) < HDR:
        d = s.recv(HDR - len(buf))
        if not d:
            sys.exit('connection closed before reply %d' % seq)
        buf += d
    f = struct.unpack('<IBBHQQQQQII', buf)
    if f[0] != MAGIC or f[2] != 3 or f[4] != seq:
        sys.exit('bad reply %r for seq %d' % (f, seq))


def fair(port, n, svc_us):
    a, b = conn(port), conn(port)
    time.sleep(0.05)
    a.sendall(b''.join(req(i, svc_us * 1000) for i in range(n)))
    time.sleep(0.05)
    t = time.monotonic()
    b.sendall(req(7, 0))
    reply(b, 7)
    print('latency_ms %.1f' % ((time.monotonic() - t) * 1000))
    sys.stdout.flush()
    for i in range(n):
        reply(a, i)


def hold(port, n, secs):
    first = conn(port)
    first.sendall(req(1, 0))
    reply(first, 1)
    held = [conn(port) for _ in range(n)]
    print('opened %d' % len(held))
    sys.stdout.flush()
    time.sleep(secs)
    first.sendall(req(2, 0))
    reply(first, 2)
    print('ok')


if __name__ == '__main__':
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == 'fair':
        fair(port, int(sys.argv[3]), int(sys.argv[4]))
    elif mode == 'hold':
        hold(port, int(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit('usage: peer.py fair|hold PORT ...')
