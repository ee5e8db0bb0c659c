package camellos

import (
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/text"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Camello is a typed camellos record (a provider's profile).
type Camello struct {
	core.BaseRecordProxy
}

// Wrap returns rec as a Camello.
func Wrap(rec *core.Record) *Camello {
	c := &Camello{}
	c.SetProxyRecord(rec)
	return c
}

// Find loads a camello by id with app.
func Find(app core.App, id string) (*Camello, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	return Wrap(rec), nil
}

// OfUser loads the camello profile of a user with app.
func OfUser(app core.App, userID string) (*Camello, error) {
	rec, err := app.FindFirstRecordByData(Collection, "user", userID)
	if err != nil {
		return nil, err
	}
	return Wrap(rec), nil
}

// UserID is the CAMELLOS user behind the profile.
func (c *Camello) UserID() string { return c.GetString(FieldUser) }

// Name is the camello's public name.
func (c *Camello) Name() string { return c.GetString(FieldName) }

// Status is PENDIENTE, ACTIVO, RECHAZADO or SUSPENDIDO.
func (c *Camello) Status() string { return c.GetString(FieldStatus) }

// Active reports whether the camello is ACTIVO (listed, assignable, bookable).
func (c *Camello) Active() bool { return c.Status() == StatusActive }

// Premium reports whether the camello is featured.
func (c *Camello) Premium() bool { return c.GetBool(FieldPremium) }

// ServiceIDs are the services the camello offers.
func (c *Camello) ServiceIDs() []string { return c.GetStringSlice(FieldServices) }

// Timezone is the profile's IANA zone ("" for the configured default).
func (c *Camello) Timezone() string { return c.GetString(FieldTimezone) }

// Rating is the camello's review average and count.
func (c *Camello) Rating() Rating {
	return Rating{Average: c.GetFloat(FieldRatingAvg), Count: c.GetInt(FieldRatingCount)}
}

// City is the camello's city.
func (c *Camello) City() string { return c.GetString(FieldCity) }

// Description is the camello's public description.
func (c *Camello) Description() string { return c.GetString(FieldDescription) }

// Created is when the profile was created.
func (c *Camello) Created() types.DateTime { return c.GetDateTime(FieldCreated) }

// ActiveOffering lists the ACTIVO camellos who offer serviceID in city
// (folded; "Bogotá" also finds "Bogotá D.C."), in id order.
func ActiveOffering(app core.App, city, serviceID string) ([]*Camello, error) {
	key := text.Fold(city)
	var ids []string
	err := app.DB().Select("id").From(Collection).
		Where(dbx.HashExp{FieldStatus: StatusActive}).
		AndWhere(dbx.Or(dbx.HashExp{FieldCityKey: key}, dbx.NewExp(FieldCityKey+" LIKE {:prefix} ESCAPE '\\'",
			dbx.Params{"prefix": httpapi.LikePattern(key + " ")[1:]}))).
		AndWhere(dbx.NewExp(FieldServices+" LIKE {:svc} ESCAPE '\\'", dbx.Params{"svc": httpapi.LikePattern(`"` + serviceID + `"`)})).
		Column(&ids)
	if err != nil {
		return nil, err
	}
	recs, err := app.FindRecordsByIds(Collection, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*Camello, len(recs))
	for i, r := range recs {
		out[i] = Wrap(r)
	}
	return out, nil
}

// WorkArea is the camello's work area; ok is false when none is set.
func (c *Camello) WorkArea() (a WorkArea, ok bool) {
	if !c.GetBool(FieldHasBase) {
		return WorkArea{}, false
	}
	return WorkArea{Point: geo.Point{Lat: c.GetFloat(FieldBaseLat), Lng: c.GetFloat(FieldBaseLng)},
		PlaceID: c.GetString(FieldBasePlace), PlaceName: c.GetString(FieldNeighborhood), RadiusKm: c.GetInt(FieldRadiusKm)}, true
}
