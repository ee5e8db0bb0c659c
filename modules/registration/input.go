package registration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/imagecheck"
	"camellos/modules/auth"
	"camellos/modules/camellos"
	"camellos/modules/catalog"

	"github.com/pocketbase/pocketbase/core"
)

// camelloInput is the body of POST /api/register/camello.
type camelloInput struct {
	auth.Account              // name, email, phone, password, confirmPassword, acceptTerms, city
	Trades           []string `json:"trades"`
	DocumentID       string   `json:"documentId"`
	Neighborhood     string   `json:"neighborhood"`
	ProfessionalCard string   `json:"professionalCard"`
	ServiceIDs       []string `json:"serviceIds"`
	Description      string   `json:"description"`

	tradesSet bool
	photo     *photo
	documents []photo // photos of the document and professional card
}

// photo is an uploaded photo, checked by the upload policy.
type photo = camellos.Photo

// readInput binds a JSON or multipart body. In multipart, trades and
// serviceIds come as JSON-encoded strings, acceptTerms as "true"/"false",
// and the photo in the file field "file".
func readInput(e *core.RequestEvent) (*camelloInput, error) {
	in := &camelloInput{}
	if !httpapi.IsMultipart(e.Request) {
		raw, err := readRaw(e)
		if err != nil {
			return nil, err
		}
		if err := httpapi.DecodeObject(raw, in); err != nil {
			return nil, err
		}
		in.tradesSet = bytes.Contains(raw, []byte(`"trades"`))
		return in, nil
	}

	if err := e.Request.ParseMultipartForm(1 << 20); err != nil {
		if apiErr := httpapi.ToError(err); apiErr.Status == http.StatusRequestEntityTooLarge {
			return nil, apiErr
		}
		return nil, httpapi.BadRequest("Formulario multipart inválido")
	}
	form := e.Request.MultipartForm
	fields := map[string]json.RawMessage{}
	v := httpapi.NewValidation()
	for _, name := range []string{"name", "email", "phone", "password", "confirmPassword", "city",
		"documentId", "neighborhood", "professionalCard", "description"} {
		if vals := form.Value[name]; len(vals) > 0 {
			fields[name], _ = json.Marshal(vals[0])
		}
	}
	if vals := form.Value["acceptTerms"]; len(vals) > 0 {
		switch strings.TrimSpace(vals[0]) {
		case "true":
			fields["acceptTerms"] = json.RawMessage("true")
		case "false":
			fields["acceptTerms"] = json.RawMessage("false")
		default:
			v.Add("acceptTerms", "Debe ser verdadero o falso")
		}
	}
	for _, name := range []string{"trades", "serviceIds"} {
		if vals := form.Value[name]; len(vals) > 0 {
			var list []string
			if err := json.Unmarshal([]byte(vals[0]), &list); err != nil {
				v.Add(name, "Debe ser una lista JSON de textos")
				continue
			}
			fields[name], _ = json.Marshal(list)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(fields)
	if err := httpapi.DecodeObject(raw, in); err != nil {
		return nil, err
	}
	_, in.tradesSet = fields["trades"]

	if files := form.File["file"]; len(files) > 0 {
		p, msg, err := readPhoto(files[0])
		if err != nil {
			return nil, httpapi.Internal(err)
		}
		if msg != "" {
			return nil, httpapi.FieldError("file", msg)
		}
		in.photo = p
	}
	if docs := form.File["documents"]; len(docs) > 0 {
		if len(docs) > camellos.MaxDocuments {
			return nil, httpapi.FieldError("documents", fmt.Sprintf("Máximo %d fotos de documentos", camellos.MaxDocuments))
		}
		for _, fh := range docs {
			p, msg, err := readImage(camellos.FieldDocuments, fh)
			if err != nil {
				return nil, httpapi.Internal(err)
			}
			if msg != "" {
				return nil, httpapi.FieldError("documents", msg)
			}
			in.documents = append(in.documents, *p)
		}
	}
	return in, nil
}

func readRaw(e *core.RequestEvent) ([]byte, error) {
	if e.Request.ContentLength != 0 && !httpapi.IsJSON(e.Request) {
		return nil, httpapi.NewError(http.StatusUnsupportedMediaType, httpapi.MsgUnsupportedType)
	}
	raw, err := io.ReadAll(e.Request.Body)
	if err != nil {
		return nil, httpapi.ToError(err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	return raw, nil
}

// readPhoto checks an uploaded photo by the camello photo's upload policy
// (internal/imagecheck: type by content, size, dimensions read from the
// header before anything decodes). The message is "" when it is acceptable.
func readPhoto(fh *multipart.FileHeader) (*photo, string, error) {
	return readImage(camellos.FieldPhoto, fh)
}

// readImage checks an uploaded image by the upload policy of the camellos
// field (its row of internal/imagecheck).
func readImage(field string, fh *multipart.FileHeader) (*photo, string, error) {
	policy, _ := imagecheck.For(camellos.Collection, field)
	if fh.Size > policy.MaxBytes {
		return nil, fmt.Sprintf("La foto no puede superar %d MB", policy.MaxBytes>>20), nil
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, policy.MaxBytes+1))
	if err != nil {
		return nil, "", err
	}
	info, err := policy.CheckBytes(data)
	if v := imagecheck.AsViolation(err); v != nil {
		return nil, v.Message, nil
	} else if err != nil {
		return nil, "", err
	}
	return &photo{Data: data, Ext: info.Ext}, "", nil
}

// validate checks every field against the Limits table; it returns the
// account (normalised) for the user.
func (in *camelloInput) validate(app core.App) (*auth.Account, error) {
	v := httpapi.NewValidation()
	acc := &in.Account
	acc.Validate(v, true)

	if !in.tradesSet || in.Trades == nil {
		v.Add("trades", "Es obligatorio")
	} else if trades, msg := camellos.NormalizeTrades(in.Trades); msg != "" {
		v.Add("trades", msg)
	} else {
		in.Trades = trades
	}
	in.DocumentID = strings.TrimSpace(in.DocumentID)
	in.Neighborhood = strings.TrimSpace(in.Neighborhood)
	in.ProfessionalCard = strings.TrimSpace(in.ProfessionalCard)
	in.Description = strings.TrimSpace(in.Description)
	httpapi.CheckLength(v, "documentId", in.DocumentID, 0, bounds.DocumentIDMax)
	httpapi.CheckLength(v, "neighborhood", in.Neighborhood, 0, bounds.NeighborhoodMax)
	httpapi.CheckLength(v, "professionalCard", in.ProfessionalCard, 0, bounds.ProfessionalCardMax)
	httpapi.CheckLength(v, "description", in.Description, 0, bounds.CamelloDescriptionMax)
	in.checkServices(app, v)
	return acc, v.Err()
}

func (in *camelloInput) checkServices(app core.App, v *httpapi.Validation) {
	if len(in.ServiceIDs) > 50 {
		v.Add("serviceIds", "Debe tener como máximo 50 servicios")
		return
	}
	ids := []string{}
	seen := map[string]bool{}
	for _, id := range in.ServiceIDs {
		if !httpapi.ValidID(id) {
			v.Add("serviceIds", "Identificador de servicio inválido")
			return
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	in.ServiceIDs = ids
	if len(ids) == 0 {
		return
	}
	known, err := catalog.KnownServices(app, ids)
	if err != nil {
		v.Add("serviceIds", "No se pudieron comprobar los servicios")
		return
	}
	for _, id := range ids {
		if !known[id] {
			v.Add("serviceIds", "Servicio desconocido: "+id)
		}
	}
}
