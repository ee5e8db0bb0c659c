package modules_test

import (
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/camellos"
	"camellos/modules/places"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestTypedRecordsMatchTheSchema checks every field name an owner's typed
// record and commands use against the collections the migrations build:
// the field exists, with the type the accessor reads it as.
func TestTypedRecordsMatchTheSchema(t *testing.T) {
	k := testkit.New(t)
	cases := []struct {
		collection, field, typ string
	}{
		{users.Collection, users.FieldName, core.FieldTypeText},
		{users.Collection, users.FieldRole, core.FieldTypeSelect},
		{users.Collection, users.FieldPhone, core.FieldTypeText},
		{users.Collection, users.FieldCity, core.FieldTypeText},
		{users.Collection, users.FieldDisabled, core.FieldTypeBool},
		{users.Collection, users.FieldAvatar, core.FieldTypeFile},
		{users.Collection, core.FieldNameEmail, core.FieldTypeEmail},
		{users.Collection, core.FieldNameVerified, core.FieldTypeBool},
		{camellos.Collection, camellos.FieldUser, core.FieldTypeRelation},
		{camellos.Collection, camellos.FieldBaseLat, core.FieldTypeNumber},
		{camellos.Collection, camellos.FieldBaseLng, core.FieldTypeNumber},
		{camellos.Collection, camellos.FieldHasBase, core.FieldTypeBool},
		{camellos.Collection, camellos.FieldBasePlace, core.FieldTypeText},
		{camellos.Collection, camellos.FieldRadiusKm, core.FieldTypeNumber},
		{places.Collection, places.FieldName, core.FieldTypeText},
		{places.Collection, places.FieldKind, core.FieldTypeSelect},
		{places.Collection, places.FieldCity, core.FieldTypeText},
		{places.Collection, places.FieldDepartment, core.FieldTypeText},
		{places.Collection, places.FieldLat, core.FieldTypeNumber},
		{places.Collection, places.FieldLng, core.FieldTypeNumber},
		{places.Collection, places.FieldSource, core.FieldTypeText},
		{places.Collection, places.FieldNameKey, core.FieldTypeText},
		{camellos.Collection, camellos.FieldName, core.FieldTypeText},
		{camellos.Collection, camellos.FieldTrades, core.FieldTypeJSON},
		{camellos.Collection, camellos.FieldStatus, core.FieldTypeSelect},
		{camellos.Collection, camellos.FieldPremium, core.FieldTypeBool},
		{camellos.Collection, camellos.FieldServices, core.FieldTypeRelation},
		{camellos.Collection, camellos.FieldDocumentID, core.FieldTypeText},
		{camellos.Collection, camellos.FieldPhone, core.FieldTypeText},
		{camellos.Collection, camellos.FieldCity, core.FieldTypeText},
		{camellos.Collection, camellos.FieldNeighborhood, core.FieldTypeText},
		{camellos.Collection, camellos.FieldProfessionalCard, core.FieldTypeText},
		{camellos.Collection, camellos.FieldDescription, core.FieldTypeText},
		{camellos.Collection, camellos.FieldPhoto, core.FieldTypeFile},
		{camellos.Collection, camellos.FieldNotes, core.FieldTypeText},
		{camellos.Collection, camellos.FieldTimezone, core.FieldTypeText},
		{camellos.Collection, "ratingAvg", core.FieldTypeNumber},
		{camellos.Collection, "ratingCount", core.FieldTypeNumber},
	}
	for _, c := range cases {
		col, err := k.App.FindCollectionByNameOrId(c.collection)
		if err != nil {
			t.Fatalf("collection %q: %v", c.collection, err)
		}
		f := col.Fields.GetByName(c.field)
		if f == nil {
			t.Errorf("%s.%s: no such field in the migrations", c.collection, c.field)
			continue
		}
		if f.Type() != c.typ {
			t.Errorf("%s.%s is a %s field, the typed record reads a %s", c.collection, c.field, f.Type(), c.typ)
		}
	}
	// A planted wrong name or type is seen.
	col, _ := k.App.FindCollectionByNameOrId(users.Collection)
	if col.Fields.GetByName("nmae") != nil || col.Fields.GetByName(users.FieldName).Type() == core.FieldTypeBool {
		t.Fatal("the check cannot fail")
	}
}
