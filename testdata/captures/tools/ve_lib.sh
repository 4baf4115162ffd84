#!/bin/bash
# Helpers for the kernel-settings validation captures (source this file).
# Namespaces must be prefixed pdvE-; addresses 10.65.x.x / fd65::.
# The same topology as vb_lib.sh (pdvB), on its own addresses.
VB_NET=65
VB_PREFIX=pdvE-
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vb_lib.sh"
VE_TOOLS=$VB_TOOLS
VEAPP="$VB_TOOLS/tcpapp.py"
ve_pair_up() { vb_pair_up "$@"; }
ve_pair_down() { vb_pair_down "$@"; }
ve_dr_up() { vb_dr_up "$@"; }
ve_dr_down() { vb_dr_down "$@"; }
