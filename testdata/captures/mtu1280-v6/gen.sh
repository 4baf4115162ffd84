#!/bin/bash
# pcapdoc validation capture mtu1280-v6 (kernel-settings variants, namespaces pdvE-*): see README.md.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
set -e
bash "$HERE/../tools/ve_run.sh" mtu6 "$HERE"
