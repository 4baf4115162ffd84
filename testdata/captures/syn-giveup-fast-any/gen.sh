#!/bin/bash
# pcapdoc validation capture syn-giveup-fast-any (kernel-settings variants, namespaces pdvE-*): see README.md.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
set -e
bash "$HERE/../tools/ve_run.sh" syn1 "$HERE"
