package backup

import (
	"errors"
	"strings"
	"testing"
)

// S3 errors print as one Spanish line, without the raw XML answer and its
// string-to-sign (PocketBase's S3 error text is reproduced as it prints).
func TestReadableS3Errors(t *testing.T) {
	xml := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><StringToSign>AWS4-HMAC-SHA256\n20261124T000000Z\nabc</StringToSign></Error>"
	for in, want := range map[string]string{
		"blob (key \"x.zip\") (code=Unknown): 403 SignatureDoesNotMatch: The request signature we calculated does not match\n(RAW: " + xml + ")": "S3 rechazó las credenciales (SignatureDoesNotMatch)",
		"404 NoSuchBucket: The specified bucket does not exist\n(RAW: <Error/>)":                                                                 "el bucket de S3_BUCKET no existe",
		"Put \"http://127.0.0.1:1/backups/x.zip\": dial tcp 127.0.0.1:1: connect: connection refused":                                            "no se pudo conectar con S3_ENDPOINT (connection refused)",
		"500 InternalError: We encountered an internal error\n(RAW: <Error><Code>InternalError</Code></Error>)":                                  "S3 respondió 500 InternalError",
	} {
		got := Readable(errors.New(in)).Error()
		if !strings.Contains(got, want) || strings.ContainsAny(got, "\n<>") || strings.Contains(got, "StringToSign") || strings.Contains(got, "AWS4-HMAC") {
			t.Errorf("Readable(%q) = %q, want one line with %q", in[:40], got, want)
		}
	}
	plain := errors.New("open pb_data/backups: permission denied")
	if Readable(plain) != plain {
		t.Error("a short local error must be kept as it is")
	}
}
