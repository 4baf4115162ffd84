#!/bin/bash
# ecn-syn-drop-client: see README.md. One run of tools/q24_run.sh ecndrop makes every vantage of this
# scenario (the sibling folders named in README.md). Run as root; bounded; cleans up.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
exec bash "$HERE/../tools/q24_run.sh" ecndrop
