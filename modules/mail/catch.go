package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"strings"
	"sync"

	"github.com/emersion/go-smtp"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Command is `camellos mail catch [--addr 127.0.0.1:2525]`: a tiny SMTP
// server that prints every mail it receives, so a developer can watch the
// service's mails locally (run the service with SMTP_HOST=127.0.0.1
// SMTP_PORT=2525 SMTP_TLS=off).
func Command(app core.App) *cobra.Command {
	root := &cobra.Command{Use: "mail", Short: "Herramientas de correo"}
	var addr string
	catch := &cobra.Command{
		Use:   "catch",
		Short: "Recibe por SMTP e imprime los correos (desarrollo)",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			// PocketBase's Execute ignores command errors: the exit code is ours.
			if err := Catch(cmd.Context(), addr, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
				fmt.Fprintln(os.Stderr, "Error:", err)
				os.Exit(1)
			}
		},
	}
	catch.Flags().StringVar(&addr, "addr", "127.0.0.1:2525", "dirección donde escuchar")
	root.AddCommand(catch)
	return root
}

// Catch listens on addr and prints every mail it receives to out until
// ctx ends; a busy or invalid address is an error.
func Catch(ctx context.Context, addr string, out, errw io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "Esperando correos en %s (SMTP_HOST=%s SMTP_PORT=%s SMTP_TLS=off); Ctrl+C para salir\n",
		l.Addr(), hostOf(l.Addr().String()), portOf(l.Addr().String()))
	s := NewCatcher(func(m Caught) { fmt.Fprint(out, m.Format()) })
	if ctx != nil {
		go func() {
			<-ctx.Done()
			_ = s.Close()
		}()
	}
	err = s.Serve(l)
	if errors.Is(err, smtp.ErrServerClosed) {
		return nil
	}
	return err
}

func hostOf(a string) string { h, _, _ := net.SplitHostPort(a); return h }
func portOf(a string) string { _, p, _ := net.SplitHostPort(a); return p }

// Caught is one mail received by a Catcher, decoded.
type Caught struct {
	From    string   // envelope sender
	To      []string // envelope recipients
	Header  mail.Header
	Subject string // decoded
	Text    string // the text/plain part, decoded
	HTML    string // the text/html part, decoded
	Raw     []byte
}

// Format is how `mail catch` prints a mail.
func (m Caught) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "──── correo de %s para %s ────\n", m.From, strings.Join(m.To, ", "))
	for _, k := range []string{"From", "To", "Subject", "Date", "List-Unsubscribe"} {
		if v := m.Header.Get(k); v != "" {
			if d, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
				v = d
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintf(&b, "\n%s\n(HTML: %d bytes)\n\n", strings.TrimSpace(m.Text), len(m.HTML))
	return b.String()
}

// Parse decodes a raw message: headers, subject and both parts.
func Parse(raw []byte) (Caught, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Caught{}, err
	}
	c := Caught{Header: msg.Header, Raw: raw}
	dec := new(mime.WordDecoder)
	c.Subject, _ = dec.DecodeHeader(msg.Header.Get("Subject"))
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return c, err
	}
	if !strings.HasPrefix(mt, "multipart/") {
		body, _ := io.ReadAll(decodeCTE(msg.Header.Get("Content-Transfer-Encoding"), msg.Body))
		c.Text = string(body)
		return c, nil
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
		body, _ := io.ReadAll(decodeCTE(p.Header.Get("Content-Transfer-Encoding"), p))
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			c.Text = string(body)
		case "text/html":
			c.HTML = string(body)
		}
	}
	return c, nil
}

func decodeCTE(cte string, r io.Reader) io.Reader {
	if strings.EqualFold(cte, "quoted-printable") {
		return quotedprintable.NewReader(r)
	}
	return r
}

// NewCatcher is an SMTP server (plain, no authentication) that hands every
// received mail to got. The CLI prints them; tests read them.
func NewCatcher(got func(Caught)) *smtp.Server {
	s := smtp.NewServer(&catchBackend{got: got})
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	return s
}

type catchBackend struct {
	mu  sync.Mutex
	got func(Caught)
}

func (b *catchBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &catchSession{b: b}, nil
}

type catchSession struct {
	b    *catchBackend
	from string
	to   []string
}

func (s *catchSession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *catchSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *catchSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	c, err := Parse(raw)
	if err != nil {
		c = Caught{Raw: raw, Text: string(raw)}
	}
	c.From, c.To = s.from, s.to
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.got(c)
	return nil
}
func (s *catchSession) Reset()        { s.from, s.to = "", nil }
func (s *catchSession) Logout() error { return nil }
