#!/bin/bash
set -e
apt-get update
apt-get install -y ruby ruby-minitest
ruby --version
