#!/bin/bash
# frag-loss-retry-udp-client and -server: ../frag-reply-udp-client/gen.sh with MODE=loss
MODE=loss exec bash "$(cd "$(dirname "$0")" && pwd)/../frag-reply-udp-client/gen.sh"
