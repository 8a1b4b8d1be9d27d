#!/bin/sh
# sudo in the Posthoc sandbox: there is no root to give (every action runs with no capability at all), so
# the command runs as the action's own user. apt-get install works without it (image/posthoc_apt.py); other
# commands that need root fail as they would for anyone else, and say so.
while [ $# -gt 0 ]; do
  case "$1" in
    -u|-g|-p|-C|-h|-r|-t|-U|-T) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -eq 0 ] && { echo "posthoc: sudo: nothing to run" >&2; exit 1; }
exec "$@"
