package whatsapp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Bounds of a confirmation code.
const (
	// CodeDigits is the length of a code.
	CodeDigits = 6
	// CodeTTL is how long a code can be used.
	CodeTTL = 10 * time.Minute
	// CodeAttempts is how many guesses one code allows; past them the user
	// asks for a new code (the "whatsapp.code" quota row bounds those).
	CodeAttempts = 5
)

// Spanish messages of the opt-in.
const (
	MsgUnavailable   = "Los avisos por WhatsApp no están disponibles por ahora"
	MsgPhoneInvalid  = "Escribe un celular colombiano (300 123 4567) o un número internacional con + y el código del país"
	MsgNoCode        = "Primero pide un código para tu número de WhatsApp"
	MsgCodeExpired   = "El código venció; pide uno nuevo"
	MsgCodeExhausted = "Usaste todos los intentos de este código; pide uno nuevo"
	MsgCodeWrong     = "El código no es correcto"
	MsgCodeFormat    = "Escribe los 6 dígitos del código que te llegó por WhatsApp"
	MsgNotRegistered = "No tienes un número de WhatsApp registrado"
)

// NormalizePhone reads a phone number as people write it and answers its
// E.164 digits without "+" (what the Cloud API's "to" takes): a Colombian
// mobile of 10 digits starting with 3 (with or without 57 in front), or any
// number written with "+" and its country code (8 to 15 digits). Spaces,
// dots, dashes and parentheses are ignored.
func NormalizePhone(s string) (string, bool) {
	s = strings.TrimSpace(s)
	plus := strings.HasPrefix(s, "+")
	var digits strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '+' && i == 0, r == ' ', r == '.', r == '-', r == '(', r == ')':
		default:
			return "", false
		}
	}
	d := digits.String()
	switch {
	case len(d) == 10 && d[0] == '3' && !plus:
		return "57" + d, true
	case strings.HasPrefix(d, "57"):
		// Colombia: a mobile is 57 + 10 digits starting with 3.
		if len(d) == 12 && d[2] == '3' {
			return d, true
		}
		return "", false
	case plus && len(d) >= 8 && len(d) <= 15 && d[0] != '0':
		return d, true
	}
	return "", false
}

// contact is a user's row of whatsapp_contacts.
type contact struct {
	ID            string `db:"id"`
	Phone         string `db:"phone"`
	Status        string `db:"status"`
	CodeHash      string `db:"codeHash"`
	CodeExpiresAt string `db:"codeExpiresAt"`
	CodeAttempts  int    `db:"codeAttempts"`
	ConfirmedAt   string `db:"confirmedAt"`
}

// contactOf reads the user's contact (a zero contact when none).
func contactOf(app core.App, userID string) (contact, error) {
	var c contact
	err := app.DB().Select("id", "phone", "status", "codeHash", "codeExpiresAt", "codeAttempts", "confirmedAt").
		From(ContactsCollection).Where(dbx.HashExp{"user": userID}).Limit(1).One(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return contact{}, nil
	}
	return c, err
}

// json is the contact as the API answers it.
func (c contact) json(app core.App) map[string]any {
	status := "SIN_NUMERO"
	if c.ID != "" {
		status = c.Status
	}
	out := map[string]any{
		"available":   Enabled(app),
		"status":      status,
		"phone":       nil,
		"confirmedAt": nil,
	}
	if c.Phone != "" {
		out["phone"] = "+" + c.Phone
	}
	if c.ConfirmedAt != "" {
		if t, err := types.ParseDateTime(c.ConfirmedAt); err == nil {
			out["confirmedAt"] = timefmt.ISO(t.Time())
		}
	}
	if c.Status == ContactPending && c.CodeHash != "" {
		if t, err := types.ParseDateTime(c.CodeExpiresAt); err == nil {
			out["codeExpiresAt"] = timefmt.ISO(t.Time())
		}
		out["attemptsLeft"] = max(CodeAttempts-c.CodeAttempts, 0)
	}
	return out
}

// codeHash binds a code to its user: the same digits of another user never
// match.
func codeHash(userID, code string) string {
	sum := sha256.Sum256([]byte("whatsapp-code\x00" + userID + "\x00" + code))
	return hex.EncodeToString(sum[:])
}

// newCode is CodeDigits random digits.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// whatsappGet answers the caller's WhatsApp channel.
func whatsappGet(e *core.RequestEvent) error {
	c, err := contactOf(e.App, session.AuthUser(e).Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"whatsapp": c.json(e.App)})
}

// whatsappStart registers (or changes) the caller's number and sends a new
// code to it over WhatsApp: the number is PENDIENTE (the channel off) until
// the code is confirmed. One transaction writes the contact and the code's
// outbox message.
func whatsappStart(e *core.RequestEvent) error {
	if !Enabled(e.App) {
		return httpapi.NewError(http.StatusServiceUnavailable, MsgUnavailable)
	}
	var in struct {
		Phone *string `json:"phone"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	if in.Phone == nil || strings.TrimSpace(*in.Phone) == "" {
		return httpapi.FieldError("phone", "Es obligatorio")
	}
	phone, ok := NormalizePhone(*in.Phone)
	if !ok || len(*in.Phone) > 40 {
		return httpapi.FieldError("phone", MsgPhoneInvalid)
	}
	settle, err := ratelimit.Take(e, "whatsapp.code", "")
	if err != nil {
		return err
	}
	userID := session.AuthUser(e).Id
	code, err := newCode()
	if err != nil {
		settle(true)
		return httpapi.Internal(err)
	}
	now := time.Now()
	expires, _ := types.ParseDateTime(now.Add(CodeTTL))
	sent, _ := types.ParseDateTime(now)
	err = writer.Transaction(e.App, func(tx core.App) error {
		// The session's user as of this transaction: a number is never
		// kept for an account erased since the session was read.
		if !users.Enabled(tx, userID) {
			return httpapi.Unauthorized(httpapi.MsgUnauthenticated)
		}
		rec, err := tx.FindFirstRecordByData(ContactsCollection, "user", userID)
		if errors.Is(err, sql.ErrNoRows) {
			col, cerr := tx.FindCachedCollectionByNameOrId(ContactsCollection)
			if cerr != nil {
				return cerr
			}
			rec = core.NewRecord(col)
			rec.Set("user", userID)
		} else if err != nil {
			return err
		}
		rec.Set("phone", phone)
		rec.Set("status", ContactPending)
		rec.Set("codeHash", codeHash(userID, code))
		rec.Set("codeExpiresAt", expires)
		rec.Set("codeAttempts", 0)
		rec.Set("codeSentAt", sent)
		rec.Set("confirmedAt", "")
		if err := tx.Save(rec); err != nil {
			return err
		}
		// Codes not sent yet of an earlier request are void now.
		if _, err := tx.DB().Delete(Collection, dbx.HashExp{"user": userID, "kind": KindCode, "status": StatusPending}).Execute(); err != nil {
			return err
		}
		return queue(tx, row{UserID: userID, Kind: KindCode, Phone: phone, Template: TemplateCode.Name, Language: Language},
			[]string{code})
	})
	settle(err != nil)
	if err != nil {
		return err
	}
	c, err := contactOf(e.App, userID)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusAccepted, map[string]any{"whatsapp": c.json(e.App)})
}

// whatsappConfirm checks a code. Each guess is one conditional UPDATE that
// counts it while fewer than CodeAttempts were spent, so racing guesses
// never get more than CodeAttempts tries; the right code confirms the
// number with a second conditional UPDATE (one winner).
func whatsappConfirm(e *core.RequestEvent) error {
	var in struct {
		Code *string `json:"code"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	code := ""
	if in.Code != nil {
		code = strings.ReplaceAll(strings.TrimSpace(*in.Code), " ", "")
	}
	if len(code) != CodeDigits || strings.Trim(code, "0123456789") != "" {
		return httpapi.FieldError("code", MsgCodeFormat)
	}
	userID := session.AuthUser(e).Id
	c, err := contactOf(e.App, userID)
	if err != nil {
		return httpapi.Internal(err)
	}
	if c.ID == "" || c.Status != ContactPending || c.CodeHash == "" {
		return httpapi.Conflict(MsgNoCode)
	}
	now := types.NowDateTime().String()
	if c.CodeExpiresAt <= now {
		return httpapi.FieldError("code", MsgCodeExpired)
	}
	res, err := e.App.DB().NewQuery("UPDATE " + ContactsCollection + " SET codeAttempts = codeAttempts + 1, updated = {:now} " +
		"WHERE id = {:id} AND status = {:pending} AND codeHash = {:hash} AND codeAttempts < {:max} AND codeExpiresAt > {:now}").
		Bind(dbx.Params{"id": c.ID, "pending": ContactPending, "hash": c.CodeHash, "max": CodeAttempts, "now": now}).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return httpapi.FieldError("code", MsgCodeExhausted)
	}
	if subtle.ConstantTimeCompare([]byte(codeHash(userID, code)), []byte(c.CodeHash)) != 1 {
		left := max(CodeAttempts-c.CodeAttempts-1, 0)
		msg := MsgCodeWrong + fmt.Sprintf(": te quedan %d intentos", left)
		if left == 1 {
			msg = MsgCodeWrong + ": te queda 1 intento"
		} else if left == 0 {
			msg = MsgCodeExhausted
		}
		return httpapi.FieldError("code", msg)
	}
	res, err = e.App.DB().Update(ContactsCollection, dbx.Params{
		"status": ContactConfirmed, "codeHash": "", "confirmedAt": now, "updated": now,
	}, dbx.HashExp{"id": c.ID, "status": ContactPending, "codeHash": c.CodeHash}).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return httpapi.Conflict(MsgNoCode) // a new code replaced this one meanwhile
	}
	c, err = contactOf(e.App, userID)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"whatsapp": c.json(e.App)})
}

// whatsappDelete switches the channel off: the number is forgotten and the
// caller's messages not sent yet are dropped.
func whatsappDelete(e *core.RequestEvent) error {
	userID := session.AuthUser(e).Id
	res, err := e.App.DB().Delete(ContactsCollection, dbx.HashExp{"user": userID}).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return httpapi.NotFound(MsgNotRegistered)
	}
	if _, err := e.App.DB().Delete(Collection, dbx.HashExp{"user": userID, "status": StatusPending}).Execute(); err != nil {
		return httpapi.Internal(err)
	}
	return e.NoContent(http.StatusNoContent)
}
