package legal

import (
	"encoding/json"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collections and slugs of the legal area.
const (
	Documents   = "legal_documents"
	Versions    = "legal_document_versions"
	Acceptances = "legal_acceptances"

	Privacy = "privacidad"
	Terms   = "terminos"

	MsgUnknownDocument  = "Documento legal no encontrado"
	MsgNotPublished     = "El documento legal aún no ha sido publicado"
	maxSectionsJSONSize = 4 << 20 // the sections field's MaxSize
)

// Slugs are the legal documents, in a stable order.
var Slugs = []string{Privacy, Terms}

// knownSlug reports whether slug names a legal document.
func knownSlug(slug string) bool { return slug == Privacy || slug == Terms }

// Section is one titled part of a legal text.
type Section struct {
	Title   string `json:"title"`
	Content string `json:"content"`
}

// Document is the published text: {slug, title, sections, version, updatedAt}.
type Document struct {
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	Sections  []Section `json:"sections"`
	Version   int       `json:"version"`
	UpdatedAt string    `json:"updatedAt"`
}

func documentOf(rec *core.Record) Document {
	var sections []Section
	raw, _ := json.Marshal(rec.Get("sections"))
	_ = json.Unmarshal(raw, &sections)
	if sections == nil {
		sections = []Section{}
	}
	return Document{
		Slug:      rec.GetString("slug"),
		Title:     rec.GetString("title"),
		Sections:  sections,
		Version:   rec.GetInt("version"),
		UpdatedAt: timefmt.ISO(rec.GetDateTime("updated").Time()),
	}
}

// findDocument returns the current record of a slug, or nil before the first publication.
func findDocument(app core.App, slug string) (*core.Record, error) {
	recs, err := app.FindRecordsByFilter(Documents, "slug = {:slug}", "", 1, 0, dbx.Params{"slug": slug})
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return recs[0], nil
}

// slugParam reads the path slug: unknown → 404.
func slugParam(e *core.RequestEvent) (string, error) {
	slug := e.Request.PathValue("slug")
	if !knownSlug(slug) {
		return "", httpapi.NotFound(MsgUnknownDocument)
	}
	return slug, nil
}

// documentGet answers the published text: 200 {document}; 404 before the
// first publication.
func documentGet(e *core.RequestEvent) error {
	slug, err := slugParam(e)
	if err != nil {
		return err
	}
	rec, err := findDocument(e.App, slug)
	if err != nil {
		return err
	}
	if rec == nil {
		return httpapi.NotFound(MsgNotPublished)
	}
	return e.JSON(http.StatusOK, map[string]any{"document": documentOf(rec)})
}

// publishInput is the body of PUT /api/admin/legal-documents/{slug}.
type publishInput struct {
	Title    *string            `json:"title"`
	Sections *[]json.RawMessage `json:"sections"`
}

// parse validates the body: title 1–200; 1–100 sections of {title 1–200,
// content 1–20000}; errors name the item ("sections.3.content").
func (in *publishInput) parse() (string, []Section, error) {
	v := httpapi.NewValidation()
	title := ""
	if in.Title == nil {
		v.Add("title", "Es obligatorio")
	} else {
		title = strings.TrimSpace(*in.Title)
		httpapi.CheckLength(v, "title", title, bounds.LegalTitleMin, bounds.LegalTitleMax)
	}
	var sections []Section
	switch {
	case in.Sections == nil:
		v.Add("sections", "Es obligatorio")
	case len(*in.Sections) < 1 || len(*in.Sections) > 100:
		v.Add("sections", "Debe tener entre 1 y 100 secciones")
	default:
		for i, raw := range *in.Sections {
			field := "sections." + itoa(i)
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				v.Add(field, "Debe ser un objeto {title, content}")
				continue
			}
			var s Section
			if err := json.Unmarshal(obj["title"], &s.Title); obj["title"] != nil && err != nil {
				v.Add(field+".title", "Debe ser un texto")
			} else {
				s.Title = strings.TrimSpace(s.Title)
				httpapi.CheckLength(v, field+".title", s.Title, bounds.LegalTitleMin, bounds.LegalTitleMax)
			}
			if err := json.Unmarshal(obj["content"], &s.Content); obj["content"] != nil && err != nil {
				v.Add(field+".content", "Debe ser un texto")
			} else if strings.TrimSpace(s.Content) == "" {
				v.Add(field+".content", "Es obligatorio")
			} else {
				httpapi.CheckLength(v, field+".content", s.Content, bounds.LegalContentMin, bounds.LegalContentMax)
			}
			sections = append(sections, s)
		}
	}
	if err := v.Err(); err != nil {
		return "", nil, err
	}
	if raw, _ := json.Marshal(sections); len(raw) > maxSectionsJSONSize {
		return "", nil, httpapi.FieldError("sections", "El texto completo es demasiado grande (máximo 4 MiB)")
	}
	return title, sections, nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// documentPublish is endpoint 2: 200 {document} with the new version.
func documentPublish(e *core.RequestEvent) error {
	slug, err := slugParam(e)
	if err != nil {
		return err
	}
	var in publishInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	title, sections, err := in.parse()
	if err != nil {
		return err
	}
	doc, err := Publish(e.App, slug, title, sections, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"document": doc})
}

// Publish makes title and sections the current text of slug, in one
// transaction: the version is the previous one plus one (1 for the first),
// kept for ever as a row of legal_document_versions. Transactions are
// serialised by the database, so concurrent publications each get their own
// version and none fails.
func Publish(app core.App, slug, title string, sections []Section, publishedBy string) (Document, error) {
	var doc Document
	err := writer.Transaction(app, func(txApp core.App) error {
		rec, err := findDocument(txApp, slug)
		if err != nil {
			return err
		}
		if rec == nil {
			col, err := txApp.FindCachedCollectionByNameOrId(Documents)
			if err != nil {
				return err
			}
			rec = core.NewRecord(col)
			rec.Set("slug", slug)
		}
		version := rec.GetInt("version") + 1
		vcol, err := txApp.FindCachedCollectionByNameOrId(Versions)
		if err != nil {
			return err
		}
		ver := core.NewRecord(vcol)
		ver.Set("slug", slug)
		ver.Set("version", version)
		ver.Set("title", title)
		ver.Set("sections", sections)
		ver.Set("publishedBy", publishedBy)
		if err := txApp.Save(ver); err != nil {
			return err
		}
		rec.Set("title", title)
		rec.Set("sections", sections)
		rec.Set("version", version)
		rec.Set("publishedBy", publishedBy)
		if err := txApp.Save(rec); err != nil {
			return err
		}
		doc = documentOf(rec)
		return nil
	})
	return doc, err
}
