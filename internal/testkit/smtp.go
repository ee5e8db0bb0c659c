package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/modules/mail"

	"github.com/emersion/go-smtp"
)

// Mailbox is a real SMTP server on 127.0.0.1 for one test (the server side
// of github.com/emersion/go-smtp): it keeps every mail it accepts, can be
// stopped and started again on the same port, and can answer 5xx.
type Mailbox struct {
	t    testing.TB
	Host string
	Port int
	// TLS, when set, is offered through STARTTLS; CA verifies it.
	TLS *tls.Config
	CA  *x509.CertPool

	mu      sync.Mutex
	mails   []mail.Caught
	failing int // SMTP code answered to DATA (0: accept)
	tried   int // DATA commands seen, accepted or not
	srv     *smtp.Server
	ln      net.Listener
}

// NewMailbox starts a plain SMTP server on a free loopback port.
func NewMailbox(t testing.TB) *Mailbox {
	t.Helper()
	m := &Mailbox{t: t, Host: "127.0.0.1"}
	m.Start()
	t.Cleanup(m.Stop)
	return m
}

// NewTLSMailbox starts an SMTP server that offers STARTTLS with a fresh
// self-signed certificate for 127.0.0.1 (CA holds it).
func NewTLSMailbox(t testing.TB) *Mailbox {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	m := &Mailbox{t: t, Host: "127.0.0.1", CA: pool,
		TLS: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	m.Start()
	t.Cleanup(m.Stop)
	return m
}

// Env points the service at this server (call before booting the kit).
func (m *Mailbox) Env(t *testing.T, tlsMode string) {
	t.Setenv("SMTP_HOST", m.Host)
	t.Setenv("SMTP_PORT", strconv.Itoa(m.Port))
	t.Setenv("SMTP_TLS", tlsMode)
	t.Setenv("MAIL_FROM", "Camellos <no-responder@camellos.co>")
}

// Start listens (again) on the mailbox's port.
func (m *Mailbox) Start() {
	m.t.Helper()
	addr := net.JoinHostPort(m.Host, strconv.Itoa(m.Port))
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the old socket may take a moment to free the port
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		m.t.Fatalf("smtp listen: %v", err)
	}
	m.Port = ln.Addr().(*net.TCPAddr).Port
	s := smtp.NewServer(&mailboxBackend{m: m})
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.TLSConfig = m.TLS
	m.mu.Lock()
	m.srv, m.ln = s, ln
	m.mu.Unlock()
	go func() { _ = s.Serve(ln) }()
}

// Stop closes the server: connections are refused until Start.
func (m *Mailbox) Stop() {
	m.mu.Lock()
	s := m.srv
	m.srv = nil
	m.mu.Unlock()
	if s != nil {
		_ = s.Close()
	}
}

// Fail makes the server answer code (e.g. 554) to every mail; 0 accepts again.
func (m *Mailbox) Fail(code int) {
	m.mu.Lock()
	m.failing = code
	m.mu.Unlock()
}

// Tried is how many mails were offered (DATA), accepted or refused.
func (m *Mailbox) Tried() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tried
}

// Mails returns the mails received so far.
func (m *Mailbox) Mails() []mail.Caught {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]mail.Caught(nil), m.mails...)
}

// To returns the mails received for an address.
func (m *Mailbox) To(addr string) []mail.Caught {
	var out []mail.Caught
	for _, c := range m.Mails() {
		for _, r := range c.To {
			if strings.EqualFold(r, addr) {
				out = append(out, c)
			}
		}
	}
	return out
}

// Wait blocks until addr received n mails (or fails the test after timeout)
// and returns them. The timeout only stops a hung test, so it is at least
// three minutes: a mail that a busy machine delivers late is not a failure.
func (m *Mailbox) Wait(addr string, n int, timeout time.Duration) []mail.Caught {
	m.t.Helper()
	timeout = max(timeout, 3*time.Minute)
	deadline := time.Now().Add(timeout)
	for {
		got := m.To(addr)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("mails to %s: %d, want %d", addr, len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type mailboxBackend struct{ m *Mailbox }

func (b *mailboxBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &mailboxSession{m: b.m}, nil
}

type mailboxSession struct {
	m    *Mailbox
	from string
	to   []string
}

func (s *mailboxSession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *mailboxSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *mailboxSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.tried++
	if s.m.failing != 0 {
		return &smtp.SMTPError{Code: s.m.failing, EnhancedCode: smtp.EnhancedCode{5, 3, 0}, Message: "Servidor de prueba: rechazado"}
	}
	c, err := mail.Parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, Message: "mensaje ilegible: " + err.Error()}
	}
	c.From, c.To = s.from, s.to
	s.m.mails = append(s.m.mails, c)
	return nil
}
func (s *mailboxSession) Reset()        { s.from, s.to = "", nil }
func (s *mailboxSession) Logout() error { return nil }
