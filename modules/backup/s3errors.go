package backup

import (
	"errors"
	"regexp"
	"strings"
)

// readableError is an error reworded for the operator in one Spanish line;
// the original stays reachable (errors.Is / As) but is never printed: S3
// answers carry their raw XML, with the string-to-sign of a refused
// signature.
type readableError struct {
	msg   string
	cause error
}

func (e *readableError) Error() string { return e.msg }
func (e *readableError) Unwrap() error { return e.cause }

// s3Answer finds "STATUS Code" in PocketBase's S3 errors ("403
// SignatureDoesNotMatch: … (RAW: <xml…>)").
var s3Answer = regexp.MustCompile(`\b([45]\d\d) ([A-Z][A-Za-z]+)\b`)

// Readable rewords an error of the backups storage (S3 or local) as one
// Spanish line without the S3 server's raw answer.
func Readable(err error) error {
	if err == nil {
		return nil
	}
	var done *readableError
	if errors.As(err, &done) {
		return err
	}
	full := err.Error()
	raw, _, _ := strings.Cut(full, "\n(RAW:")
	line := func(s string) error { return &readableError{msg: s, cause: err} }
	if m := s3Answer.FindStringSubmatch(raw); m != nil {
		switch code := m[2]; code {
		case "SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied", "InvalidToken", "ExpiredToken", "AuthorizationHeaderMalformed":
			return line("S3 rechazó las credenciales (" + code + "): revise S3_ACCESS_KEY, S3_SECRET y S3_REGION")
		case "NoSuchBucket":
			return line("el bucket de S3_BUCKET no existe en S3_ENDPOINT (NoSuchBucket)")
		case "NoSuchKey":
			return line("el objeto no existe en S3 (NoSuchKey)")
		default:
			return line("S3 respondió " + m[1] + " " + code)
		}
	}
	low := strings.ToLower(raw)
	for _, net := range []string{"connection refused", "no such host", "i/o timeout", "network is unreachable", "connection reset", "tls: ", "x509: "} {
		if strings.Contains(low, net) {
			return line("no se pudo conectar con S3_ENDPOINT (" + strings.TrimSuffix(net, ": ") + ")")
		}
	}
	if strings.ContainsAny(full, "\r\n") || len(full) > 300 {
		raw = strings.Join(strings.Fields(raw), " ")
		if len(raw) > 300 {
			raw = raw[:300] + "…"
		}
		return line(raw)
	}
	return err
}
