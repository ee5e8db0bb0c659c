package mail

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
)

// Kinds of mail, one pair of templates each (templates/<kind>.html and
// templates/<kind>.txt; the .txt defines the subject too).
const (
	KindPasswordReset = "restablecer"
	KindVerify        = "verificar"
	KindNotification  = "aviso"
)

//go:embed templates/*.html templates/*.txt
var templateFiles embed.FS

// Rendered is one mail's Spanish subject and both bodies.
type Rendered struct {
	Subject string
	HTML    string
	Text    string
}

// Render fills the templates of kind with data. The HTML body is escaped
// by html/template; the subject and the plain text are plain.
func Render(kind string, data any) (Rendered, error) {
	h, err := htmltemplate.ParseFS(templateFiles, "templates/layout.html", "templates/"+kind+".html")
	if err != nil {
		return Rendered{}, err
	}
	t, err := texttemplate.ParseFS(templateFiles, "templates/"+kind+".txt")
	if err != nil {
		return Rendered{}, err
	}
	var html, text, subject bytes.Buffer
	if err := h.ExecuteTemplate(&html, "layout", data); err != nil {
		return Rendered{}, err
	}
	if err := t.ExecuteTemplate(&text, kind+".txt", data); err != nil {
		return Rendered{}, err
	}
	if err := t.ExecuteTemplate(&subject, "subject", data); err != nil {
		return Rendered{}, err
	}
	// A subject is one line.
	subj := strings.Join(strings.Fields(subject.String()), " ")
	return Rendered{Subject: subj, HTML: html.String(), Text: strings.TrimLeft(text.String(), "\n")}, nil
}
