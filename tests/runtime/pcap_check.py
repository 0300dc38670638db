#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reads two pcap files of skboutput() (skboutput.test): the same packets written with offset 14
(IP.pcap) and 0 (ETH.pcap). Prints the record counts, whether each ETH record is its IP record
behind 14 bytes (and caplen = len), and the UDP payloads of the IP file.

    pcap_check.py IP.pcap ETH.pcap
"""
import struct
import sys


def records(path):
    with open(path, 'rb') as f:
        data = f.read()
    out, off = [], 24
    while off < len(data):
        caplen, length = struct.unpack('<II', data[off + 8:off + 16])
        out.append((caplen, length, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def main():
    ip, eth = records(sys.argv[1]), records(sys.argv[2])
    print('records', len(ip), len(eth))
    print('eth = 14 + ip:', len(ip) == len(eth) and
          all(e[0] == i[0] + 14 and e[2][14:] == i[2] and e[0] == e[1] and i[0] == i[1]
              for i, e in zip(ip, eth)))
    print('udp payloads:', sorted(r[2][28:].decode() for r in ip if r[2][9] == 17))


if __name__ == '__main__':
    main()
