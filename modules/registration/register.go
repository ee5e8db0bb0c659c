package registration

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/modules/auth"
	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// camelloRegister is endpoint 1: it validates everything first, hashes the
// password outside the write lock, then creates the CAMELLOS user, the
// PENDIENTE camello (with its photo) and the legal consent in one
// transaction; nothing is left behind when any step fails.
func camelloRegister(e *core.RequestEvent) error {
	in, err := readInput(e)
	if err != nil {
		return err
	}
	acc, err := in.validate(e.App)
	if err != nil {
		return err
	}
	if auth.EmailTaken(e.App, acc.Email) {
		return httpapi.Conflict(auth.MsgEmailTaken)
	}
	release, err := httpapi.HashSlot(e)
	if err != nil {
		return err
	}
	user, err := auth.PrepareUser(e.App, acc, users.RoleCamello)
	release()
	if err != nil {
		return httpapi.Internal(err)
	}
	var camello *core.Record
	err = e.App.RunInTransaction(func(tx core.App) error {
		if err := auth.SaveNewUser(tx, user); err != nil {
			return err
		}
		col, err := tx.FindCachedCollectionByNameOrId(camellos.Collection)
		if err != nil {
			return err
		}
		camello = core.NewRecord(col)
		camello.Set("user", user.Id)
		camello.Set("name", acc.Name)
		camello.Set("trades", in.Trades)
		camello.Set("status", camellos.StatusPending)
		camello.Set("premium", false)
		camello.Set("services", in.ServiceIDs)
		camello.Set("documentId", in.DocumentID)
		camello.Set("phone", acc.Phone)
		camello.Set("city", acc.City)
		camello.Set("neighborhood", in.Neighborhood)
		camello.Set("professionalCard", in.ProfessionalCard)
		camello.Set("description", in.Description)
		if in.photo != nil {
			f, err := filesystem.NewFileFromBytes(in.photo.data, "photo"+in.photo.ext)
			if err != nil {
				return err
			}
			camello.Set("photo", f)
		}
		if err := tx.Save(camello); err != nil {
			return err
		}
		return auth.SignedUp(tx, user.Id, e)
	})
	if err != nil {
		return err
	}
	auth.SendVerification(e.App, user)
	body, err := camellos.One(e.App, camello, camellos.PrivateFor(user, camello))
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusCreated, map[string]any{"user": auth.UserJSON(user), "camello": body})
}
