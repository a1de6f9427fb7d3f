#!/usr/bin/env bash
# A served run under jobs/hpcreward.sbatch with HTTPS (a certificate made here, for this
# host): the rendezvous names the certificate, a client from the rendezvous scores a shipped
# sample, a client that trusts another certificate refuses at once, the token is nowhere in
# the job output or the log; `scancel --signal=USR2` ends the run, and the job exits 0.
source "$(dirname "$0")/common.sh"
make_cert() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$(hostname)" \
    -addext "subjectAltName=DNS:$(hostname),DNS:localhost,IP:127.0.0.1" \
    -keyout "$1.key" -out "$1.pem" 2>/dev/null || fail "openssl could not make a certificate"
}
make_cert "$RUN/node"
make_cert "$RUN/other"
submit -p bench -N 1 --ntasks-per-node=2 "$REPO/jobs/hpcreward.sbatch" \
  --out "$RUN/out" --serve --listen 127.0.0.1:0 --tls-cert "$RUN/node.pem" --tls-key "$RUN/node.key"
wait_until 180 "the rendezvous" test -s "$RUN/out/coordinator.json"
say "rendezvous: $(cat "$RUN/out/coordinator.json")"
PYTHONPATH="$REPO/train_bridge/python" "$PYTHON" - "$RUN" "$REPO/train_bridge/samples/c/ikj_restrict.c" <<'PY' || fail "the client checks failed"
import json, sys, time, pathlib
from hpcreward import Client, TlsError
run, sample = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
rendezvous = json.loads((run / "out" / "coordinator.json").read_text())
assert rendezvous["url"].startswith("https://"), rendezvous
assert rendezvous.get("tls_cert") == str(run / "node.pem"), rendezvous
client = Client.from_rendezvous(run / "out")
rewards = client.score_sources([sample.read_text()], ["dgemm-256"], ["o0"])
print("reward over https:", rewards)
assert rewards[0] > 0, rewards
wrong = Client(rendezvous["url"], "not-the-token", ca_file=run / "other.pem")
started = time.monotonic()
try:
    wrong.stages()
    raise SystemExit("a client trusting another certificate connected")
except TlsError as error:
    print(f"refused in {time.monotonic() - started:.2f} s: {error}")
assert time.monotonic() - started < 5
PY
token=$(cat "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["token_file"])' "$RUN/out/coordinator.json")")
scancel --signal=USR2 "$JOB"
say "scancel --signal=USR2 $JOB"
wait_job "$JOB" 120
[ "$STATE" = COMPLETED ] && [ "$EXIT" = 0:0 ] || fail "the served job did not end cleanly"
! grep -qF "$token" "$RUN/job.out" || fail "the token is in the job output"
strings "$RUN/out/rewards.h5" > "$RUN/log-strings"  # not piped to grep -q: its early exit, under pipefail, would pass
! grep -qF "$token" "$RUN/log-strings" || fail "the token is in the log"
say "PASS"
