#!/bin/bash
# pcapdoc validation capture wscale-off-recv30 (kernel-settings variants, namespaces pdvE-*): see README.md.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
set -e
bash "$HERE/../tools/ve_run.sh" nows "$HERE"
