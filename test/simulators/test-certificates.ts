/**
 * TEST-ONLY TLS material for the HTTPS webhook receiver (test/http/webhooks-https.test.ts). These keys are
 * public (committed) and protect nothing: a throwaway test CA and two server certificates it signed, valid
 * for 100 years (2026–2126) so the tests never expire. Never trust this CA outside tests.
 *
 * - `TEST_CA_CERT`: the CA the worker is told to trust in tests only (`WEBHOOK_EXTRA_CA_FILE`).
 * - `LOCALHOST_*`: a server certificate whose only name is `DNS:localhost` (no IP address), so it verifies
 *   only when the TLS check uses the URL's host name, not the address the socket connects to.
 * - `WRONG_HOST_*`: a certificate of the same CA for `DNS:wrong-host.example`, which must be refused for
 *   `https://localhost`.
 *
 * Made with openssl (EC P-256): `req -x509 … -days 36500` for the CA, then `req -newkey` + `x509 -req -CA …
 * -days 36500` with `subjectAltName=DNS:<host>, extendedKeyUsage=serverAuth` for each server.
 */

export const TEST_CA_CERT = `-----BEGIN CERTIFICATE-----
MIIBwTCCAWegAwIBAgIURIFbn+qF5wOJFxPoCVvOx6d49/swCgYIKoZIzj0EAwIw
LTErMCkGA1UEAwwiaGlyaW5nLWludGVncmF0aW9uLXNlcnZpY2UgdGVzdCBDQTAg
Fw0yNjExMjIxMTA1MzdaGA8yMTI2MTAyOTExMDUzN1owLTErMCkGA1UEAwwiaGly
aW5nLWludGVncmF0aW9uLXNlcnZpY2UgdGVzdCBDQTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABGWem55iOncEUy+2bRr/H9MIvCSpe9W5Xb+YNbwgkNXA1PMOcCIM
OFXyLXboJ4sUkpgWurLq9peSRqu0FouFpI6jYzBhMB0GA1UdDgQWBBSjLfevAJGI
TfZs6sNRW6QtkGWGdTAfBgNVHSMEGDAWgBSjLfevAJGITfZs6sNRW6QtkGWGdTAP
BgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwICBDAKBggqhkjOPQQDAgNIADBF
AiEA8yudS68ev6VhLvK4gBFkvV+LJI8PefwjsE5PpezZ+tsCIC1CEH5X0+8sCw1x
sEHYgD5v7wFxkcQsqgQSdPVeCRG5
-----END CERTIFICATE-----
`;

export const LOCALHOST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJRvE+NI1O2LF3In0
ECpBWd3MqdUP2FBLkl5tkQEFv3ShRANCAASgqo657qffBYgtEtPIPxW2zsj9/M/l
gsVPRDIG907FkCnpPz1su8XMPmGaCqWS/AdBXt4+iKyyeVYh2ui6B6dx
-----END PRIVATE KEY-----
`;

export const LOCALHOST_CERT = `-----BEGIN CERTIFICATE-----
MIIBvDCCAWOgAwIBAgIUHf+2Ss8Ne9TMsOazQkl3o78R+cQwCgYIKoZIzj0EAwIw
LTErMCkGA1UEAwwiaGlyaW5nLWludGVncmF0aW9uLXNlcnZpY2UgdGVzdCBDQTAg
Fw0yNjExMjIxMTA1MzdaGA8yMTI2MTAyOTExMDUzN1owFDESMBAGA1UEAwwJbG9j
YWxob3N0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoKqOue6n3wWILRLTyD8V
ts7I/fzP5YLFT0QyBvdOxZAp6T89bLvFzD5hmgqlkvwHQV7ePoissnlWIdrougen
caN4MHYwFAYDVR0RBA0wC4IJbG9jYWxob3N0MAkGA1UdEwQCMAAwEwYDVR0lBAww
CgYIKwYBBQUHAwEwHQYDVR0OBBYEFNUopZWpGI3sNLVibjJe/g6x+WKhMB8GA1Ud
IwQYMBaAFKMt968AkYhN9mzqw1FbpC2QZYZ1MAoGCCqGSM49BAMCA0cAMEQCIGsL
E1iwG/lGs0BbZGiIsyqUHuVKQoY5GraWbgWrEeiKAiBD7jEvZNDZhsztkH6DIquf
JdhDUjYv765QcJ1bkBkehw==
-----END CERTIFICATE-----
`;

export const WRONG_HOST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgn6F6Lrv1b/qbQZPn
F33aww7/U7tek73jG5POyQ9tW7mhRANCAATJUShd/A2k8B17eUeAapYrDeNreVRz
BtrYMaleNLAwTIbz5b8m9d9DBX1gxLv+Gfgl7ISKIH3+S8m1TG9rLm3G
-----END PRIVATE KEY-----
`;

export const WRONG_HOST_CERT = `-----BEGIN CERTIFICATE-----
MIIB0TCCAXagAwIBAgIUHf+2Ss8Ne9TMsOazQkl3o78R+cUwCgYIKoZIzj0EAwIw
LTErMCkGA1UEAwwiaGlyaW5nLWludGVncmF0aW9uLXNlcnZpY2UgdGVzdCBDQTAg
Fw0yNjExMjIxMTA1MzdaGA8yMTI2MTAyOTExMDUzN1owHTEbMBkGA1UEAwwSd3Jv
bmctaG9zdC5leGFtcGxlMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEyVEoXfwN
pPAde3lHgGqWKw3ja3lUcwba2DGpXjSwMEyG8+W/JvXfQwV9YMS7/hn4JeyEiiB9
/kvJtUxvay5txqOBgTB/MB0GA1UdEQQWMBSCEndyb25nLWhvc3QuZXhhbXBsZTAJ
BgNVHRMEAjAAMBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQWBBQ24qG48O0v
M/Z1rEY+eTSwoj4HVTAfBgNVHSMEGDAWgBSjLfevAJGITfZs6sNRW6QtkGWGdTAK
BggqhkjOPQQDAgNJADBGAiEAxCqo3VBdHt73u8oAAJby/oJIUr7WR/lvuOi7nCqn
L/UCIQCbGyUE4azF2r0UQ2CAq5nnGZFIoWnla+srll3T+yEhHw==
-----END CERTIFICATE-----
`;
