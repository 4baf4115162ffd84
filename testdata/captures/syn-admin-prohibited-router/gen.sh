#!/bin/bash
# Made in the same run as ../syn-admin-prohibited (client and router captures).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../syn-admin-prohibited/gen.sh"
