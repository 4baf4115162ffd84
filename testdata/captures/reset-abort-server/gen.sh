#!/bin/bash
# Made in the same run as ../reset-abort (client and server captures).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../reset-abort/gen.sh"
