#!/bin/bash
# pcapdoc validation capture ts-off-synack (kernel-settings variants, namespaces pdvE-*): see README.md.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
set -e
bash "$HERE/../tools/ve_run.sh" tsoff "$HERE"
bash "$HERE/../tools/ve_run.sh" twnots "$HERE"
