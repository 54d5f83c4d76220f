#!/usr/bin/env python3
"""Sends prepared multicast DNS packets at their times: the hostile neighbour of
LANTests' "hostile network" test. Run it ONLY inside the network namespace the test
creates (ip netns exec NS python3 hostile-mdns.py FILE SOURCE...): it sends to
224.0.0.251:5353 through that namespace's loopback.

FILE holds the packets one after another, each as a 4-byte big-endian time in
milliseconds since the start, a 1-byte sender (an index into the SOURCE addresses,
each a 127.x.y.z address of that loopback, so that the browser hears several
senders), a 2-byte big-endian length and the packet's bytes (built by the test with
SnapNet's DNSMessage encoder). They are sent in the order of their times. Prints how many packets it sent and how long it took.
"""
import socket
import struct
import sys
import time

GROUP = ("224.0.0.251", 5353)


def main():
    path, sources = sys.argv[1], sys.argv[2:]
    if not sources:
        sys.exit("usage: hostile-mdns.py FILE SOURCE...")
    with open(path, "rb") as file:
        data = file.read()
    packets = []
    at = 0
    while at + 7 <= len(data):
        millis, sender, length = struct.unpack_from(">IBH", data, at)
        at += 7
        packets.append((millis / 1000.0, sender % len(sources), data[at:at + length]))
        at += length
    packets.sort(key=lambda packet: packet[0])
    sockets = []
    for source in sources:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(source))
        sock.bind((source, 0))
        sockets.append(sock)
    start = time.monotonic()
    sent = 0
    for when, sender, packet in packets:
        ahead = when - (time.monotonic() - start)
        if ahead > 0.002:
            time.sleep(ahead)
        try:
            sockets[sender].sendto(packet, GROUP)
            sent += 1
        except OSError:
            pass  # a full socket buffer drops the packet, as a network would
    print(f"sent {sent} of {len(packets)} packets in {time.monotonic() - start:.2f} s", flush=True)


if __name__ == "__main__":
    main()
