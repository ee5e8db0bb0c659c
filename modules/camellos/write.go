package camellos

import (
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// The camellos' writes: every create and save of a camellos record is one
// of these commands, AddReview or a hook of this package
// (modules/ownership_test.go refuses any other). Commands take the app to
// write with, which may be a transaction; the record hooks (hooks.go) hold
// the invariants.

// Fields of the camellos collection written by the commands.
const (
	FieldUser             = "user"
	FieldName             = "name"
	FieldTrades           = "trades"
	FieldStatus           = "status"
	FieldPremium          = "premium"
	FieldServices         = "services"
	FieldDocumentID       = "documentId"
	FieldPhone            = "phone"
	FieldCity             = "city"
	FieldNeighborhood     = "neighborhood"
	FieldProfessionalCard = "professionalCard"
	FieldDescription      = "description"
	FieldPhoto            = "photo"
	FieldDocuments        = "documents"
	FieldNotes            = "notes"
	FieldRejectionReason  = "rejectionReason"
	FieldTimezone         = "timezone"
	FieldCityKey          = "cityKey"
	FieldRatingAvg        = "ratingAvg"
	FieldRatingCount      = "ratingCount"
	FieldSearchText       = "searchText"
	FieldCreated          = "created"
	FieldUpdated          = "updated"
	// Where the camello works from ("cerca de mí"): the base point is
	// private (privacy.BasePoint), the listing answers only distances.
	FieldBaseLat   = "baseLat"
	FieldBaseLng   = "baseLng"
	FieldHasBase   = "hasBase"   // a base point is set (0,0 is a point too)
	FieldBasePlace = "basePlace" // the gazetteer place it was picked from ("" for a map tap)
	FieldRadiusKm  = "radiusKm"  // how far it travels, whole km
)

// Photo is an uploaded profile photo, already checked by the upload policy.
type Photo struct {
	Data []byte
	Ext  string // with the dot: ".jpg"
}

func (p *Photo) file() (*filesystem.File, error) {
	return filesystem.NewFileFromBytes(p.Data, "photo"+p.Ext)
}

// MaxDocuments is how many document photos a camello keeps (the field's
// MaxSelect: the identity document and the professional card).
const MaxDocuments = 2

// documentFiles are the stored files of document photos, already checked
// by the upload policy.
func documentFiles(docs []Photo) ([]*filesystem.File, error) {
	out := make([]*filesystem.File, 0, len(docs))
	for _, d := range docs {
		f, err := filesystem.NewFileFromBytes(d.Data, "documento"+d.Ext)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Registration is a new camello profile (a camello's sign-up).
type Registration struct {
	UserID, Name, DocumentID, Phone, City, Neighborhood, ProfessionalCard, Description string
	Trades, ServiceIDs                                                                 []string
	Photo                                                                              *Photo  // nil: none
	Documents                                                                          []Photo // photos of the document and professional card (≤ MaxDocuments)
}

// Create creates the PENDIENTE, non-premium profile of r's user with
// app (the sign-up's transaction).
func Create(app core.App, r Registration) (*Camello, error) {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return nil, err
	}
	c := Wrap(core.NewRecord(col))
	c.Set(FieldUser, r.UserID)
	c.Set(FieldName, r.Name)
	c.Set(FieldTrades, r.Trades)
	c.Set(FieldStatus, StatusPending)
	c.Set(FieldPremium, false)
	c.Set(FieldServices, r.ServiceIDs)
	c.Set(FieldDocumentID, r.DocumentID)
	c.Set(FieldPhone, r.Phone)
	c.Set(FieldCity, r.City)
	c.Set(FieldNeighborhood, r.Neighborhood)
	c.Set(FieldProfessionalCard, r.ProfessionalCard)
	c.Set(FieldDescription, r.Description)
	if r.Photo != nil {
		f, err := r.Photo.file()
		if err != nil {
			return nil, err
		}
		c.Set(FieldPhoto, f)
	}
	if len(r.Documents) > 0 {
		files, err := documentFiles(r.Documents)
		if err != nil {
			return nil, err
		}
		c.Set(FieldDocuments, files)
	}
	if err := app.Save(c); err != nil {
		return nil, err
	}
	return c, nil
}

// ProfileEdit is a camello's change of its own profile; nil leaves a
// field as it is. The record hooks mark the edited fields for review.
type ProfileEdit struct {
	Name, Phone, City, Neighborhood, Description, ProfessionalCard, DocumentID *string
	Trades, ServiceIDs                                                         *[]string
	Photo                                                                      *Photo
	Documents                                                                  []Photo // non-empty: replace the document photos
}

// MsgNoProfile is the 404 of a user without a camello profile.
const MsgNoProfile = "No tienes un perfil de camello"

// EditProfile applies e to the profile of user userID, re-read inside one
// write transaction (internal/writer); a user without a profile is 404.
func EditProfile(app core.App, userID string, e ProfileEdit) (*Camello, error) {
	var c *Camello
	err := writer.Transaction(app, func(tx core.App) error {
		var err error
		if c, err = OfUser(tx, userID); err != nil {
			return httpapi.NotFound(MsgNoProfile)
		}
		for field, p := range map[string]*string{
			FieldName: e.Name, FieldPhone: e.Phone, FieldCity: e.City, FieldNeighborhood: e.Neighborhood,
			FieldDescription: e.Description, FieldProfessionalCard: e.ProfessionalCard, FieldDocumentID: e.DocumentID,
		} {
			if p != nil {
				c.Set(field, *p)
			}
		}
		if e.Trades != nil {
			c.Set(FieldTrades, *e.Trades)
		}
		if e.ServiceIDs != nil {
			c.Set(FieldServices, *e.ServiceIDs)
		}
		if e.Photo != nil {
			f, err := e.Photo.file()
			if err != nil {
				return err
			}
			c.Set(FieldPhoto, f)
		}
		if len(e.Documents) > 0 {
			files, err := documentFiles(e.Documents)
			if err != nil {
				return err
			}
			c.Set(FieldDocuments, files)
		}
		return tx.Save(c)
	})
	return c, err
}

// WorkArea is where a camello works from: its base point, the place of
// the gazetteer it was picked from (PlaceID and PlaceName empty for a map
// tap) and how far it travels. Bounds are checked by the caller
// (internal/bounds) and again by the schema.
type WorkArea struct {
	Point     geo.Point
	PlaceID   string
	PlaceName string // copied into the public neighborhood when set
	RadiusKm  int
}

// SetWorkArea sets the work area of user userID's profile in one write
// transaction (404 without a profile). The listing's spatial index moves
// the camello at the commit.
func SetWorkArea(app core.App, userID string, a WorkArea) (*Camello, error) {
	var c *Camello
	err := writer.Transaction(app, func(tx core.App) error {
		var err error
		if c, err = OfUser(tx, userID); err != nil {
			return httpapi.NotFound(MsgNoProfile)
		}
		c.Set(FieldBaseLat, a.Point.Lat)
		c.Set(FieldBaseLng, a.Point.Lng)
		c.Set(FieldHasBase, true)
		c.Set(FieldBasePlace, a.PlaceID)
		c.Set(FieldRadiusKm, a.RadiusKm)
		if a.PlaceName != "" {
			c.Set(FieldNeighborhood, a.PlaceName)
		}
		return tx.Save(c)
	})
	return c, err
}

// ClearWorkArea removes the work area of user userID's profile: the
// camello leaves the searches by distance.
func ClearWorkArea(app core.App, userID string) (*Camello, error) {
	var c *Camello
	err := writer.Transaction(app, func(tx core.App) error {
		var err error
		if c, err = OfUser(tx, userID); err != nil {
			return httpapi.NotFound(MsgNoProfile)
		}
		clearWorkArea(c)
		return tx.Save(c)
	})
	return c, err
}

func clearWorkArea(c *Camello) {
	c.Set(FieldBaseLat, 0)
	c.Set(FieldBaseLng, 0)
	c.Set(FieldHasBase, false)
	c.Set(FieldBasePlace, "")
	c.Set(FieldRadiusKm, 0)
}

// Decision is an admin's decision on a camello; nil leaves a field.
type Decision struct {
	Status  *string
	Premium *bool
	Notes   *string
	Reason  *string // a rejection's reason (rejectionReason), set with the status
}

// Decide applies an admin's decision to camello id, re-read inside one
// write transaction, so two admins deciding at once cannot both move it
// from the same status: an unknown camello is 404, a transition the state
// machine refuses 409. The decision reviews the pending edits.
func Decide(app core.App, id string, d Decision) (*Camello, error) {
	var c *Camello
	err := writer.Transaction(app, func(tx core.App) error {
		var err error
		if c, err = Find(tx, id); err != nil {
			return httpapi.NotFound(MsgCamelloNotFound)
		}
		if d.Status != nil {
			from := c.Status()
			if from != *d.Status && !CanTransition(from, *d.Status) {
				return httpapi.Conflict(TransitionError(from, *d.Status))
			}
			c.Set(FieldStatus, *d.Status)
			if d.Reason != nil && *d.Status == StatusRejected {
				c.Set(FieldRejectionReason, *d.Reason)
			}
		}
		MarkReviewed(c.Record)
		if d.Premium != nil {
			c.Set(FieldPremium, *d.Premium)
		}
		if d.Notes != nil {
			c.Set(FieldNotes, *d.Notes)
		}
		return tx.Save(c)
	})
	return c, err
}

// SetStatus moves camello id to status with app when the state machine
// allows it from its current status (else the record hook's 400).
func SetStatus(app core.App, id, status string) error {
	c, err := Find(app, id)
	if err != nil {
		return err
	}
	c.Set(FieldStatus, status)
	return app.Save(c)
}

// bindUserRules binds the camellos' rules on users' saves: a camello
// profile belongs to a CAMELLOS user (the role of a user with a profile
// stays CAMELLOS, and a user without one cannot take it), and a disabled
// user's ACTIVO camello is suspended (out of the listing, the assignments
// and the bookings; an admin re-activates it later), in the same save.
func bindUserRules(app core.App) {
	users.OnRoleChanging(app).BindFunc(func(e *users.RoleChange) error {
		if e.From == users.RoleCamello || e.To == users.RoleCamello {
			_, err := OfUser(e.App, e.User.Id)
			hasProfile := err == nil
			if e.From == users.RoleCamello && hasProfile {
				return httpapi.FieldRuleError("role", "Un camello con perfil no puede cambiar de rol")
			}
			if e.To == users.RoleCamello && !hasProfile {
				return httpapi.FieldRuleError("role", "El rol CAMELLOS requiere un perfil de camello (registro de camello)")
			}
		}
		return e.Next()
	})
	users.OnDisabled(app).BindFunc(func(e *users.Disabled) error {
		c, err := OfUser(e.App, e.User.Id)
		if err == nil && c.Active() {
			if err := SetStatus(e.App, c.Id, StatusSuspended); err != nil {
				return err
			}
		}
		return e.Next()
	})
}
