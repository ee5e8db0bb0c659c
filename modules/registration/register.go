package registration

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/modules/auth"
	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// camelloRegister is endpoint 1: it validates everything first, then
// runs auth's one sign-up sequence (auth.SignUp: password hashed outside
// the write lock, one transaction) with the CAMELLOS role, whose
// transaction also creates the PENDIENTE camello with its photo
// (camellos.Create): nothing is left behind when any step fails.
func camelloRegister(e *core.RequestEvent) error {
	in, err := readInput(e)
	if err != nil {
		return err
	}
	acc, err := in.validate(e.App)
	if err != nil {
		return err
	}
	var camello *camellos.Camello
	user, err := auth.SignUp(e, acc, users.RoleCamello, func(tx core.App, user *users.User) error {
		camello, err = camellos.Create(tx, camellos.Registration{
			UserID: user.Id, Name: acc.Name, Trades: in.Trades, ServiceIDs: in.ServiceIDs,
			DocumentID: in.DocumentID, Phone: acc.Phone, City: acc.City, Neighborhood: in.Neighborhood,
			ProfessionalCard: in.ProfessionalCard, Description: in.Description, Photo: in.photo,
			Documents: in.documents,
		})
		return err
	})
	if err != nil {
		return err
	}
	body, err := camellos.One(e.App, camello.Record, camellos.PrivateFor(user.Record, camello.Record))
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusCreated, map[string]any{"user": auth.UserJSON(user.Record), "camello": body})
}
