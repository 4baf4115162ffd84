#!/bin/bash
# Made in the same run as ../reset-abort-alert-client (client and server captures).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../reset-abort-alert-client/gen.sh"
