package mail

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"time"

	"camellos/internal/config"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/mailer"
)

// smtpTimeout bounds one whole SMTP exchange.
const smtpTimeout = 30 * time.Second

// Sender is the parsed MAIL_FROM.
func Sender(app core.App) mail.Address {
	from := config.Of(app).MailFrom
	if a, err := mail.ParseAddress(from); err == nil {
		return *a
	}
	a, _ := mail.ParseAddress(config.DefaultMailFrom)
	return *a
}

// outgoing is one mail ready to leave.
type outgoing struct {
	From    mail.Address
	To      mail.Address
	Subject string
	HTML    string
	Text    string
	Headers map[string]string
}

// transmit sends one mail: over our SMTP client when SMTP_HOST is set (the
// TLS mode of SMTP_TLS is honoured exactly), else through PocketBase's mail
// client when SMTP was configured by hand in the dashboard.
func transmit(app core.App, opts Options, m outgoing) error {
	cfg := config.Of(app)
	if cfg.SMTPHost == "" {
		return app.NewMailClient().Send(&mailer.Message{
			From: m.From, To: []mail.Address{m.To}, Subject: m.Subject,
			HTML: m.HTML, Text: m.Text, Headers: m.Headers,
		})
	}
	raw, err := compose(m)
	if err != nil {
		return err
	}
	return sendSMTP(cfg, opts, m.From.Address, m.To.Address, raw)
}

// sendSMTP speaks SMTP to the configured server: implicit TLS ("tls"),
// mandatory STARTTLS ("starttls": a server that does not offer it is an
// error, never a silent plain-text session) or plain ("off").
func sendSMTP(cfg config.Config, opts Options, from, to string, raw []byte) error {
	addr := net.JoinHostPort(cfg.SMTPHost, strconv.Itoa(cfg.SMTPPort))
	tlsCfg := &tls.Config{ServerName: cfg.SMTPHost, RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	var conn net.Conn
	var err error
	if cfg.SMTPTLS == config.SMTPTLS {
		conn, err = tls.DialWithDialer(dialer, "tcp", addr, tlsCfg)
	} else {
		conn, err = dialer.Dial("tcp", addr)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(smtpTimeout))
	c, err := smtp.NewClient(conn, cfg.SMTPHost)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("camellos"); err != nil {
		return err
	}
	if cfg.SMTPTLS == config.SMTPStartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("el servidor SMTP no ofrece STARTTLS (SMTP_TLS=starttls)")
		}
		if err := c.StartTLS(tlsCfg); err != nil {
			return err
		}
	}
	if cfg.SMTPUsername != "" || cfg.SMTPPassword != "" {
		if err := c.Auth(smtp.PlainAuth("", cfg.SMTPUsername, cfg.SMTPPassword, cfg.SMTPHost)); err != nil {
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// permanent reports whether an SMTP answer is a 5xx (logged as such; the
// mail is retried all the same: a misconfigured or full server recovers).
func permanent(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te) && te.Code >= 500
}

// compose renders a multipart/alternative message: the plain text first,
// then the HTML, both UTF-8 quoted-printable.
func compose(m outgoing) ([]byte, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	head := textproto.MIMEHeader{}
	head.Set("From", m.From.String())
	head.Set("To", m.To.String())
	head.Set("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	head.Set("Date", time.Now().UTC().Format(time.RFC1123Z))
	head.Set("MIME-Version", "1.0")
	head.Set("Content-Type", "multipart/alternative; boundary="+mw.Boundary())
	if _, ok := m.Headers["Message-ID"]; !ok {
		head.Set("Message-ID", messageID(m.From.Address))
	}
	for k, v := range m.Headers {
		head.Set(k, v)
	}
	keys := make([]string, 0, len(head))
	for k := range head {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out bytes.Buffer
	for _, k := range keys {
		for _, v := range head[k] {
			fmt.Fprintf(&out, "%s: %s\r\n", k, strings.NewReplacer("\r", "", "\n", "").Replace(v))
		}
	}
	out.WriteString("\r\n")
	for _, part := range []struct{ ctype, body string }{
		{"text/plain; charset=utf-8", m.Text},
		{"text/html; charset=utf-8", m.HTML},
	} {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", part.ctype)
		h.Set("Content-Transfer-Encoding", "quoted-printable")
		pw, err := mw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(pw)
		if _, err := qp.Write([]byte(strings.ReplaceAll(part.body, "\r\n", "\n"))); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	out.Write(buf.Bytes())
	return out.Bytes(), nil
}

// messageID is a fresh Message-ID in the sender's domain.
func messageID(from string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	domain := "camellos.co"
	if i := strings.LastIndex(from, "@"); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}
