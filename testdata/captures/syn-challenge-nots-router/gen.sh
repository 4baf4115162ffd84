#!/bin/bash
# Made in the same run as ../syn-challenge-nots (server and router captures).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../syn-challenge-nots/gen.sh"
