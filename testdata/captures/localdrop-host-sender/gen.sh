#!/bin/bash
# localdrop-host-sender: issue 35 (pcapdoc --host). ../tools/h35_run.sh localdrop: the setup of
# ../local-drop (RTT 10 ms; the client's eth0 root qdisc tbf rate 20mbit burst 4k limit 6000; the
# client sends 1.5 MiB) in namespaces px6-localdrop-*, addresses 10.206.x.x, captured on the
# client's eth0, with ../tools/host_snap.sh taken in the client's namespace before, every 0.5 s
# during (ss) and after. Writes localdrop-host-sender.pcap and host.tgz here. Run as root.
exec bash "$(dirname "$(readlink -f "$0")")/../tools/h35_run.sh" localdrop
