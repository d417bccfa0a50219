#!/usr/bin/env bash
# Start N replicas of the app on 127.0.0.1:8501.. (for deploy/nginx.conf), all with the same
# cookie secret, and stop them all on Ctrl-C.
#
#     deploy/run_replicas.sh            # 3 replicas
#     REPLICAS=4 deploy/run_replicas.sh # edit the upstream block of nginx.conf to match
#
# Every replica must sign cookies with the same server.cookieSecret: Streamlit's XSRF token
# (cookie _streamlit_xsrf, checked on uploads) written by one replica is then accepted by the others
# when nginx fails over. Set DTX_COOKIE_SECRET yourself (and keep it secret) to keep browsers'
# cookies valid across restarts; otherwise a random one is made for this run.
#
# The replicas listen on 127.0.0.1 only: nothing but the proxy on this machine reaches them. They believe the
# client address in X-Forwarded-For only from the proxy named in DTX_TRUSTED_PROXIES (live/limits.py): here
# the nginx beside them (127.0.0.1). Any other peer is counted by its own address, whatever it sends. Every
# process of this machine can connect from 127.0.0.1 too, so run the replicas where no untrusted user has
# a shell (or put nginx on another machine, name its address, and let replicas listen where only it reaches).
set -euo pipefail

cd "$(dirname "$0")/.."
REPLICAS="${REPLICAS:-3}"
FIRST_PORT="${FIRST_PORT:-8501}"
TRUSTED="${DTX_TRUSTED_PROXIES:-127.0.0.1}"  # the proxy's address as the replicas see it
SECRET="${DTX_COOKIE_SECRET:-$(python -c 'import secrets; print(secrets.token_hex(32))')}"

pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait
}
trap stop EXIT INT TERM

for ((i = 0; i < REPLICAS; i++)); do
    port=$((FIRST_PORT + i))
    STREAMLIT_SERVER_COOKIE_SECRET="$SECRET" DTX_TRUSTED_PROXIES="$TRUSTED" python -m streamlit run app.py \
        --server.headless true --server.address 127.0.0.1 --server.port "$port" \
        --server.fileWatcherType none --browser.gatherUsageStats false &
    pids+=("$!")
    echo "replica $i on 127.0.0.1:$port (pid $!)"
done
wait
