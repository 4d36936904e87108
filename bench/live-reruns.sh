#!/bin/bash
# Twenty live runs with different seeds against one persistent `npm start -- --data DIR` world, through the
# conformance CLI as a platform team runs it (partner and platform credentials, control plane, writes, sync,
# burst). Rotated credentials are read back between runs. Prints one line per run; the issue-15 figure.
# Usage: bench/live-reruns.sh [FIRST_SEED] [COUNT]   (from the repository root)
cd "$(dirname "$0")/.."
DIR=$(mktemp -d); PORT=$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")
npx tsx simulator/cli.ts --data $DIR/data --port 0 --webhook-url http://127.0.0.1:$PORT/webhook --fixtures-out $DIR/fixtures.json > $DIR/sim.log 2>&1 &
SIM=$!
for i in $(seq 1 100); do [ -f $DIR/fixtures.json ] && break; sleep 0.2; done
BASE=$(node -p "require('$DIR/fixtures.json').baseUrl"); ORIGIN=$(node -p "new URL('$BASE').origin")
export PARTNER_API_KEY=$(node -p "require('$DIR/fixtures.json').integrations[0].apiKey")
export PARTNER_WEBHOOK_SECRET=$(node -p "require('$DIR/fixtures.json').integrations[0].webhookSecret")
export PARTNER_OTHER_API_KEY=$(node -p "require('$DIR/fixtures.json').integrations[1].apiKey")
export PARTNER_DISABLED_API_KEY=$(node -p "require('$DIR/fixtures.json').integrations[2].apiKey")
export PARTNER_NON_INTEGRATION_TOKEN=$(node -p "require('$DIR/fixtures.json').staffToken")
export PARTNER_CONTROL_TOKEN=$PARTNER_NON_INTEGRATION_TOKEN
PROP=$(node -p "require('$DIR/fixtures.json').integrations[0].properties.filter(p=>!p.archived)[0].doorloom_id")
FIRST=${1:-101}; COUNT=${2:-20}
for seed in $(seq $FIRST $((FIRST + COUNT - 1))); do
  npx tsx conformance/cli.ts --target $BASE --property $PROP --allow-writes --allow-sync --allow-burst \
    --webhook-public-url http://127.0.0.1:$PORT/webhook --webhook-listen-port $PORT --control-url $ORIGIN/_control/v1 \
    --seed $seed --runs 5 --report-dir $DIR/reports > $DIR/run-$seed.log 2>&1
  echo "seed $seed exit $? $(grep -E '^[0-9]+ passed' $DIR/run-$seed.log)"
  grep -E "✗|failed:|errored" $DIR/run-$seed.log | head -5
  if [ -f $DIR/reports/rotated-credentials.json ]; then
    K=$(node -p "require('$DIR/reports/rotated-credentials.json').apiKey || ''"); [ -n "$K" ] && export PARTNER_API_KEY=$K
    W=$(node -p "require('$DIR/reports/rotated-credentials.json').webhookSecret || ''"); [ -n "$W" ] && export PARTNER_WEBHOOK_SECRET=$W
    rm $DIR/reports/rotated-credentials.json
  fi
done
kill $SIM
echo DIR $DIR
