package testkit

import "github.com/pocketbase/pocketbase/core"

// Superuser creates a PocketBase superuser (the dashboard's account) and
// returns its auth token (the Authorization header) and a file token (the
// ?token= of protected files, as the dashboard sends it).
func (k *Kit) Superuser() (auth, file string) {
	k.T.Helper()
	col, err := k.App.FindCollectionByNameOrId(core.CollectionNameSuperusers)
	if err != nil {
		k.T.Fatal(err)
	}
	su := core.NewRecord(col)
	su.SetEmail("root" + Unique() + "@example.com")
	su.SetPassword("secreto-123456")
	if err := k.App.Save(su); err != nil {
		k.T.Fatal(err)
	}
	if auth, err = su.NewAuthToken(); err != nil {
		k.T.Fatal(err)
	}
	if file, err = su.NewFileToken(); err != nil {
		k.T.Fatal(err)
	}
	return auth, file
}
