/**
 * A certification run that could not be set up (issue 41 item 8): the
 * partner's receiver never answered, so nothing was graded and no
 * certificate or report is written. Schemathesis keeps a failure to reach an
 * API apart from a failed check; so does certify: the CLI exits 2, as
 * conformance does for its preflight (conformance/preflight.ts).
 */
export class CertifySetupError extends Error {
  override name = 'CertifySetupError';
}
