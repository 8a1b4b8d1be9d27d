#!/usr/bin/env bash
# Installs and starts what Posthoc's tests need on a Debian machine. Each component can be asked for
# alone; with no argument, all of them:
#   apt       Debian packages: docker.io, debootstrap, chromium, libsecret/gnome-keyring/dbus-x11, xvfb (a desktop's
#             keyring prompt, in the locked-keychain test), git, build tools, dpkg-dev and gnupg (the stand-in
#             Debian archive of the apt tests, tests/support/apt-repo.ts)
#   node      Node 24 from the npm registry into /opt/node24 (when the system Node is older than 22.12)
#   docker    starts dockerd (bridge off: sandboxes use network mode none) unless one already answers
#   image     builds the sandbox image with `posthoc sandbox build` (needs `npm ci && npm run build` first)
#   postgres  PostgreSQL from Debian, started (pg_ctlcluster), with the test role and database: posthoc_test,
#             password posthoc-test-pw (override with POSTHOC_TEST_PG_URL / POSTHOC_TEST_PG_PASSWORD)
#   mysql     MariaDB from Debian (mariadb-server, mariadb-client for mysqldump), started on 127.0.0.1:3306
#             with the test user posthoc_test, password posthoc-test-pw, allowed to create databases named
#             posthoc_test* (override with POSTHOC_TEST_MYSQL_URL / POSTHOC_TEST_MYSQL_PASSWORD); the binary log on
#             (ROW, FULL) and the user's replication privileges; posthoc_trig, the same without them
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
components=("$@")
[ ${#components[@]} -gt 0 ] || components=(apt node docker postgres mysql)

want() { local c; for c in "${components[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1; }

if want apt; then
  echo "== apt packages"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    docker.io debootstrap chromium libsecret-1-dev gnome-keyring dbus-x11 xvfb git python3 make g++ ca-certificates dpkg-dev gnupg xz-utils pyflakes3 >/dev/null
fi

if want node; then
  echo "== node"
  if node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null; then
    echo "system Node $(node --version) is new enough"
  elif [ -x /opt/node24/node_modules/.bin/node ]; then
    echo "Node 24 already in /opt/node24"
  else
    $SUDO npm install --prefix /opt/node24 node@24 >/dev/null
    echo "installed Node $(/opt/node24/node_modules/.bin/node --version) into /opt/node24"
  fi
fi

if want docker; then
  echo "== docker"
  if docker version >/dev/null 2>&1; then
    echo "a Docker daemon already answers"
  else
    $SUDO sh -c 'nohup dockerd --bridge=none --iptables=false >/tmp/dockerd.log 2>&1 &'
    for _ in $(seq 1 60); do docker version >/dev/null 2>&1 && break; sleep 1; done
    docker version >/dev/null 2>&1 || { echo "dockerd did not start; see /tmp/dockerd.log" >&2; tail -20 /tmp/dockerd.log >&2; exit 1; }
    echo "dockerd started"
  fi
fi

if want image; then
  echo "== sandbox image"
  if node bin/posthoc.js sandbox status >/dev/null 2>&1; then
    echo "the sandbox image is present"
  else
    node bin/posthoc.js sandbox build
  fi
fi

if want postgres; then
  echo "== postgres"
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  version="$(ls /usr/lib/postgresql | sort -n | tail -1)"
  if ! pg_lsclusters -h 2>/dev/null | grep -q "^$version main"; then $SUDO pg_createcluster "$version" main >/dev/null; fi
  $SUDO pg_ctlcluster "$version" main start 2>/dev/null || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 && break; sleep 1; done
  pg_isready -q -h 127.0.0.1 || { echo "PostgreSQL did not start; see /var/log/postgresql/" >&2; exit 1; }
  as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
  as_postgres psql -q -v ON_ERROR_STOP=1 <<'SQL'
DO $$BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'posthoc_test') THEN
    CREATE ROLE posthoc_test LOGIN PASSWORD 'posthoc-test-pw' CREATEDB;
  END IF;
END$$;
SELECT 'CREATE DATABASE posthoc_test OWNER posthoc_test' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'posthoc_test')\gexec
SQL
  echo "PostgreSQL $version answers on 127.0.0.1:5432 (role and database posthoc_test)"
fi

if want mysql; then
  echo "== mysql"
  if ! command -v mariadbd >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client >/dev/null
  fi
  # Capture reads the row-based binary log with full images (issue 29): log_bin, ROW, FULL.
  $SUDO tee /etc/mysql/mariadb.conf.d/60-posthoc-binlog.cnf >/dev/null <<'CNF'
[mariadbd]
log_bin = mariadb-bin
binlog_format = ROW
binlog_row_image = FULL
# With the binary log on, a user without SUPER may create triggers (the person's and Posthoc's) only so.
log_bin_trust_function_creators = 1
server_id = 1
expire_logs_days = 1
CNF
  if mariadb-admin ping >/dev/null 2>&1 && [ "$($SUDO mariadb -N -e 'SELECT @@log_bin AND @@log_bin_trust_function_creators' 2>/dev/null)" = 0 ]; then
    # Running without the binary log: restart it with the file above.
    $SUDO mariadb-admin shutdown
    for _ in $(seq 1 60); do mariadb-admin ping >/dev/null 2>&1 || break; sleep 1; done
  fi
  if ! mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 ping >/dev/null 2>&1 && ! mariadb-admin ping >/dev/null 2>&1; then
    # Started by hand rather than by the service manager (CI containers have no systemd); loopback only.
    $SUDO install -d -o mysql -g mysql /run/mysqld
    $SUDO sh -c 'nohup mariadbd-safe --user=mysql --bind-address=127.0.0.1 --port=3306 >/tmp/mariadb.log 2>&1 &'
    for _ in $(seq 1 60); do mariadb-admin ping >/dev/null 2>&1 && break; sleep 1; done
    mariadb-admin ping >/dev/null 2>&1 || { echo "MariaDB did not start; see /tmp/mariadb.log and /var/log/mysql/" >&2; exit 1; }
  fi
  $SUDO mariadb <<'SQL'
CREATE USER IF NOT EXISTS 'posthoc_test'@'127.0.0.1' IDENTIFIED BY 'posthoc-test-pw';
CREATE USER IF NOT EXISTS 'posthoc_test'@'localhost' IDENTIFIED BY 'posthoc-test-pw';
GRANT ALL PRIVILEGES ON `posthoc\_test%`.* TO 'posthoc_test'@'127.0.0.1';
GRANT ALL PRIVILEGES ON `posthoc\_test%`.* TO 'posthoc_test'@'localhost';
GRANT PROCESS ON *.* TO 'posthoc_test'@'127.0.0.1';
GRANT PROCESS ON *.* TO 'posthoc_test'@'localhost';
GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'posthoc_test'@'127.0.0.1';
GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'posthoc_test'@'localhost';
-- A second user without the replication privileges: capture falls back to triggers for it.
CREATE USER IF NOT EXISTS 'posthoc_trig'@'127.0.0.1' IDENTIFIED BY 'posthoc-test-pw';
CREATE USER IF NOT EXISTS 'posthoc_trig'@'localhost' IDENTIFIED BY 'posthoc-test-pw';
GRANT ALL PRIVILEGES ON `posthoc\_test%`.* TO 'posthoc_trig'@'127.0.0.1';
GRANT ALL PRIVILEGES ON `posthoc\_test%`.* TO 'posthoc_trig'@'localhost';
GRANT PROCESS ON *.* TO 'posthoc_trig'@'127.0.0.1';
GRANT PROCESS ON *.* TO 'posthoc_trig'@'localhost';
CREATE DATABASE IF NOT EXISTS posthoc_test;
SQL
  echo "MariaDB $(mariadb --version | sed -E 's/.*Distrib ([^,-]+).*/\1/') answers on 127.0.0.1:3306 (user and database posthoc_test; posthoc_trig has no replication privileges), binary log $($SUDO mariadb -N -e 'SELECT @@log_bin, @@binlog_format, @@binlog_row_image')"
fi
