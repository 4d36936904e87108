/**
 * A page's steps as one bash script, so that the shell state a reader
 * builds up (KEY=…, export …) carries from one command to the next, as in
 * the reader's own shell. Each command runs in the page's directory with its
 * output in LOGS/<step>.log and stdin from /dev/null; the script appends
 * `ok N` (a foreground command: `ok N <wall>s cpu <cpu>s`) or `fail N <why>`
 * to LOGS/results per step and stops at the first
 * failure. Background commands are put in their own process group (`set -m`)
 * and listed in LOGS/pids; on exit the script stops every one it started
 * (SIGTERM to the group), and the test stops any it could not.
 */
import type { Step } from './example-steps.ts';

const PRELUDE = `set -m
LOGS=$1
servers=(); runs=(); run_steps=(); run_expect=()
result() { echo "$*" >> "$LOGS/results"; }
# Seconds since the step started (EPOCHREALTIME: bash 5), for the summary of where a page's time goes.
took() { local now=\${EPOCHREALTIME/[.,]/}; local t=$(( (now - started) / 100000 )); echo "$((t / 10)).$((t % 10))"; }
# CPU milliseconds of the finished children (user + system) into CPU_MS, from \`times\` run in this shell (in a
# subshell it would count the subshell's): the examples hold a command's stated duration to it (docs/figures.test.ts).
cpu_read() {
  times > "$LOGS/times"
  local t; t=$(tail -n 1 "$LOGS/times")
  CPU_MS=0
  [[ $t =~ ([0-9]+)m([0-9]+)[.,]([0-9]+)s[[:space:]]([0-9]+)m([0-9]+)[.,]([0-9]+)s ]] || return 0
  CPU_MS=$(( (10#\${BASH_REMATCH[1]} * 60 + 10#\${BASH_REMATCH[2]}) * 1000 + 10#\${BASH_REMATCH[3]} + (10#\${BASH_REMATCH[4]} * 60 + 10#\${BASH_REMATCH[5]}) * 1000 + 10#\${BASH_REMATCH[6]} ))
}
stop_all() {
  local p
  for p in "\${servers[@]}" "\${runs[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
  for p in "\${servers[@]}" "\${runs[@]}"; do wait "$p" 2>/dev/null; done
}
trap stop_all EXIT
# Background runs (they end by themselves) are awaited before the next foreground command.
await_runs() {
  local i rc
  for i in "\${!runs[@]}"; do
    wait "\${runs[$i]}"; rc=$?
    if [ "$rc" -ne "\${run_expect[$i]}" ]; then result "fail \${run_steps[$i]} exit $rc"; exit 1; fi
    result "ok \${run_steps[$i]}"
  done
  runs=(); run_steps=(); run_expect=()
}
# Waits until the step's output matches what it prints once ready (never a fixed sleep: its own words). A slow machine
# is waited for: the step fails only once it ends, or prints nothing new for $5 s (a step that hangs), never for taking long.
ready() {
  local step=$1 log=$2 pattern=$3 pid=$4 end=$((SECONDS + $5)) size=-1 now
  until grep -qsE -- "$pattern" "$log"; do
    if ! kill -0 "$pid" 2>/dev/null; then result "fail $step ended before it was ready"; exit 1; fi
    now=$( { wc -c < "$log"; } 2>/dev/null || echo 0)
    if [ "$now" -ne "$size" ]; then size=$now; end=$((SECONDS + $5)); fi
    if [ "$SECONDS" -ge "$end" ]; then result "fail $step not ready: nothing new printed for $5 s"; exit 1; fi
    sleep 0.1
  done
}
`;

/** Seconds a background command may print nothing new before it is ready (a hang; a slow machine keeps printing). */
const READY_SECONDS = 300;

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function pageScript(steps: Step[]): string {
  const out = [PRELUDE];
  steps.forEach((step, n) => {
    out.push(`# line ${step.line}`);
    if (step.kind === 'foreground') {
      out.push('await_runs');
      out.push('started=${EPOCHREALTIME/[.,]/}; cpu_read; cpu_started=$CPU_MS');
      out.push(`{ ${step.command}\n} > "$LOGS/${n}.log" 2>&1 < /dev/null`);
      out.push(`rc=$?; if [ "$rc" -ne ${step.expectedExit} ]; then result "fail ${n} exit $rc"; exit 1; fi; cpu_read; cpu=$(( (CPU_MS - cpu_started) / 100 )); result "ok ${n} $(took)s cpu $((cpu / 10)).$((cpu % 10))s"`);
    } else {
      out.push(`{ ${step.command}\n} > "$LOGS/${n}.log" 2>&1 < /dev/null &`);
      out.push(`pid=$!; echo "$pid" >> "$LOGS/pids"`);
      out.push(step.ends === 'server' ? 'servers+=("$pid")' : `runs+=("$pid"); run_steps+=(${n}); run_expect+=(${step.expectedExit})`);
      out.push(`ready ${n} "$LOGS/${n}.log" ${quote(step.ready)} "$pid" ${READY_SECONDS}`);
      if (step.ends === 'server') out.push(`result "ok ${n}"`);
    }
  });
  out.push('await_runs', 'result done', '');
  return out.join('\n');
}
