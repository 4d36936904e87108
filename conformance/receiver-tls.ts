/**
 * A throwaway certificate and key for a webhook receiver on loopback, test
 * only: the TLS front (tls-front.ts) serves it, and an in-process simulator
 * is told to trust it for webhook delivery (createSimulator's `webhookCa`),
 * so webhooks.https-delivery can register an https:// URL (§2.1
 * webhook.url) without a certificate a public CA signed. The key is public
 * by being committed here: it proves nothing about anyone, and nothing but
 * a test may trust it.
 *
 * Self-signed P-256, CN=localhost, subjectAltName DNS:localhost,
 * IP:127.0.0.1, IP:::1, CA:true (it is its own trust anchor), valid from
 * 2000-01-01 to 2100-01-01 (a machine whose clock is off by years still
 * accepts it). Made with OpenSSL 3.0 (`openssl ca -selfsign` sets the start
 * date, which `openssl req -x509` cannot):
 *
 *   openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
 *     -subj /CN=localhost -keyout key.pem -out req.csr
 *   openssl ca -batch -config ca.cnf -selfsign -keyfile key.pem -in req.csr \
 *     -startdate 20000101000000Z -enddate 21000101000000Z -extensions ext -notext -out cert.pem
 *
 * where ca.cnf's `ext` section holds `subjectAltName = DNS:localhost,IP:127.0.0.1,IP:::1`,
 * `basicConstraints = critical,CA:true`, `keyUsage = critical,digitalSignature,keyCertSign`
 * and `extendedKeyUsage = serverAuth` (and `copy_extensions = copy`, `policy` requiring commonName).
 */

/** A certificate and its private key, PEM. */
export interface TlsIdentity {
  cert: string;
  key: string;
}

export const RECEIVER_TLS: TlsIdentity = {
  cert: `-----BEGIN CERTIFICATE-----
MIIBoTCCAUagAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlsb2NhbGhv
c3QwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHVJg1LcZLxM+yqv
mzJQXszxYUtuR1S4ZpaKPPLUOgm1IQ4JIvhYFAe0cYIchaiigQi19y/gEekx4kgj
TWhHK7ajgYYwgYMwLAYDVR0RBCUwI4IJbG9jYWxob3N0hwR/AAABhxAAAAAAAAAA
AAAAAAAAAAABMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgKEMBMGA1Ud
JQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQWBBQFGeIHU+GwDuDCgQhvtD+r1eLBKjAK
BggqhkjOPQQDAgNJADBGAiEA/Q1EH63vj4FIA447EYeHLYwo7grB5FOHlWTnuQqC
FM8CIQDisSNjF4yxNXstgL8HueNhH0ecg6M7Nu6p7M6jzL70ew==
-----END CERTIFICATE-----
`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgbuszptT4Up6+XS6E
pGlA3ADBMQOTkODRUkhuOGjnhpmhRANCAAR1SYNS3GS8TPsqr5syUF7M8WFLbkdU
uGaWijzy1DoJtSEOCSL4WBQHtHGCHIWoooEItfcv4BHpMeJII01oRyu2
-----END PRIVATE KEY-----
`,
};
