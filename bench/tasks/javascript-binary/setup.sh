#!/bin/bash
set -e
node --version
npm install
