#!/bin/bash
# sndbuf-host-server: issue 35 (pcapdoc --host). ../tools/h35_run.sh sndbuf: the recipe of
# ../sndbuf-64k-server (tools/px1_run.sh sndbuf64k: RTT 40 ms, server SO_SNDBUF 32768, 2 MiB,
# gso_max_size 1500 on the server's eth0) in namespaces px6-sndbuf-*, addresses 10.206.x.x,
# with ../tools/host_snap.sh taken in the server's namespace before, every 0.5 s during (ss)
# and after the transfer. Writes sndbuf-host-server.pcap and host.tgz here. Run as root.
exec bash "$(dirname "$(readlink -f "$0")")/../tools/h35_run.sh" sndbuf
