// Test aid: reports loading the runner or the catalogue (see load-probe.mjs).
export async function load(url, context, next) {
  if (/\/conformance\/(runner|catalogue)\.ts$/.test(url)) process.stderr.write(`load-probe: ${url}\n`);
  return next(url, context);
}
