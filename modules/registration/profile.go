package registration

import (
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/auth"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

// profileInput is the body of PATCH /api/me/camello: every field optional.
type profileInput struct {
	Name             *string   `json:"name"`
	Phone            *string   `json:"phone"`
	City             *string   `json:"city"`
	Neighborhood     *string   `json:"neighborhood"`
	Description      *string   `json:"description"`
	ProfessionalCard *string   `json:"professionalCard"`
	DocumentID       *string   `json:"documentId"`
	Trades           *[]string `json:"trades"`
	ServiceIDs       *[]string `json:"serviceIds"`
}

// camelloSelfUpdate lets a camello edit their own profile (not status,
// premium or notes, which are the admins'). JSON, or multipart with a new
// photo in "file" (trades/serviceIds as JSON strings).
func camelloSelfUpdate(e *core.RequestEvent) error {
	user := session.AuthUser(e)
	in := &profileInput{}
	var newPhoto *photo
	var newDocs []photo
	if httpapi.IsMultipart(e.Request) {
		reg, err := readInput(e)
		if err != nil {
			return err
		}
		form := e.Request.MultipartForm.Value
		set := func(name string, dst **string, value string) {
			if _, ok := form[name]; ok {
				v := value
				*dst = &v
			}
		}
		set("name", &in.Name, reg.Name)
		set("phone", &in.Phone, reg.Phone)
		set("city", &in.City, reg.City)
		set("neighborhood", &in.Neighborhood, reg.Neighborhood)
		set("description", &in.Description, reg.Description)
		set("professionalCard", &in.ProfessionalCard, reg.ProfessionalCard)
		set("documentId", &in.DocumentID, reg.DocumentID)
		if reg.tradesSet {
			in.Trades = &reg.Trades
		}
		if _, ok := form["serviceIds"]; ok {
			in.ServiceIDs = &reg.ServiceIDs
		}
		newPhoto = reg.photo
		newDocs = reg.documents
	} else if err := httpapi.ReadJSON(e, in); err != nil {
		return err
	}

	v := httpapi.NewValidation()
	check := func(field string, p *string, min, max int) {
		if p != nil {
			*p = strings.TrimSpace(*p)
			httpapi.CheckLength(v, field, *p, min, max)
		}
	}
	if in.Name != nil {
		*in.Name = strings.TrimSpace(*in.Name)
		httpapi.CheckName(v, "name", *in.Name, bounds.NameMin, bounds.NameMax)
	}
	if in.Phone != nil {
		*in.Phone = strings.TrimSpace(*in.Phone)
		auth.CheckPhone(v, "phone", *in.Phone, true)
	}
	check("city", in.City, bounds.CityMin, bounds.CityMax)
	check("neighborhood", in.Neighborhood, 0, bounds.NeighborhoodMax)
	check("description", in.Description, 0, bounds.CamelloDescriptionMax)
	check("professionalCard", in.ProfessionalCard, 0, bounds.ProfessionalCardMax)
	check("documentId", in.DocumentID, 0, bounds.DocumentIDMax)
	if in.Trades != nil {
		if trades, msg := camellos.NormalizeTrades(*in.Trades); msg != "" {
			v.Add("trades", msg)
		} else {
			in.Trades = &trades
		}
	}
	if in.ServiceIDs != nil {
		tmp := &camelloInput{ServiceIDs: *in.ServiceIDs}
		tmp.checkServices(e.App, v)
		in.ServiceIDs = &tmp.ServiceIDs
	}
	if err := v.Err(); err != nil {
		return err
	}

	c, err := camellos.EditProfile(e.App, user.Id, camellos.ProfileEdit{
		Name: in.Name, Phone: in.Phone, City: in.City, Neighborhood: in.Neighborhood,
		Description: in.Description, ProfessionalCard: in.ProfessionalCard, DocumentID: in.DocumentID,
		Trades: in.Trades, ServiceIDs: in.ServiceIDs, Photo: newPhoto,
		Documents: newDocs,
	})
	if err != nil {
		return err
	}
	rec := c.Record
	return camellos.Respond(e, http.StatusOK, rec, camellos.PrivateFor(session.AuthUser(e), rec))
}
