#!/bin/bash
# Made in the same run as ../pmtu-false-loss (receiver and sender captures).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../pmtu-false-loss/gen.sh"
