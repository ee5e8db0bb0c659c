package hardening

import (
	"net/http"
	"time"

	"camellos/internal/timefmt"
)

// Outcome is what a caller may expect from a route, by status class.
type Outcome string

// Outcomes of the authorisation matrix.
const (
	// Allowed: the guards let the caller through; the answer may still be
	// 400, 404 or 409 for the data, but never 401, 403 or a 5xx.
	Allowed Outcome = "A"
	// Unauth: 401 (no session).
	Unauth Outcome = "U"
	// Forbidden: 403 (wrong role).
	Forbidden Outcome = "F"
	// Denied: 403 or 404 (not the owner; hiding existence is fine).
	Denied Outcome = "D"
	// CronOnly: 401 or 503; a session cookie never opens a cron route.
	CronOnly Outcome = "C"
	// NotFound: 404, whoever asks.
	NotFound Outcome = "N"
	// Optional: Allowed, for a feature that may be off (503 when it is not
	// configured, e.g. payments without MERCADOPAGO_ACCESS_TOKEN).
	Optional Outcome = "O"
)

// Match reports whether an HTTP status satisfies the outcome.
func (o Outcome) Match(status int) bool {
	if status >= 500 && !((o == CronOnly || o == Optional) && status == http.StatusServiceUnavailable) {
		return false
	}
	switch o {
	case Allowed, Optional:
		return status != http.StatusUnauthorized && status != http.StatusForbidden
	case Unauth:
		return status == http.StatusUnauthorized
	case Forbidden:
		return status == http.StatusForbidden
	case Denied:
		return status == http.StatusForbidden || status == http.StatusNotFound
	case CronOnly:
		return status == http.StatusUnauthorized || status == http.StatusServiceUnavailable
	case NotFound:
		return status == http.StatusNotFound
	}
	return false
}

// Call is the request a route's row sends: a body (JSON value, nil for
// none), an optional query string, and whether the call needs a session of
// its own (it ends or changes the caller's session).
type Call struct {
	Body         any
	Query        string
	FreshSession bool
	ID           string // replaces the world's natural id for the route
}

// Expectation is one row of the matrix: per role the outcome (in the order
// of Roles), and the request to send.
type Expectation struct {
	Outcomes [5]Outcome
	Build    func(w *World, role Role) Call
}

// Outcome returns the row's outcome for a role.
func (e Expectation) Outcome(role Role) Outcome {
	for i, r := range Roles {
		if r == role {
			return e.Outcomes[i]
		}
	}
	return ""
}

var (
	public      = [5]Outcome{Allowed, Allowed, Allowed, Allowed, Allowed}
	signedIn    = [5]Outcome{Unauth, Allowed, Allowed, Allowed, Allowed}
	adminOnly   = [5]Outcome{Unauth, Forbidden, Forbidden, Forbidden, Admin403}
	camelloOnly = [5]Outcome{Unauth, Forbidden, Allowed, Allowed, Forbidden}
	clientOnly  = [5]Outcome{Unauth, Allowed, Forbidden, Forbidden, Forbidden}
	jobParties  = [5]Outcome{Unauth, Allowed, Allowed, Denied, Allowed}
	jobCamello  = [5]Outcome{Unauth, Denied, Allowed, Denied, Denied}
	jobClient   = [5]Outcome{Unauth, Allowed, Denied, Denied, Denied}
	apptParties = [5]Outcome{Unauth, Allowed, Allowed, Denied, Denied}
	inboxOwner  = [5]Outcome{Unauth, Allowed, Denied, Denied, Denied}
	jobTalkers  = [5]Outcome{Unauth, Allowed, Allowed, Denied, Forbidden}
	fileReaders = [5]Outcome{NotFound, Allowed, Allowed, NotFound, Allowed}
	cron        = [5]Outcome{CronOnly, CronOnly, CronOnly, CronOnly, CronOnly}
	nowhere     = [5]Outcome{NotFound, NotFound, NotFound, NotFound, NotFound}
)

// Admin403 is Allowed: named so the adminOnly row reads as a sentence.
const Admin403 = Allowed

func none(*World, Role) Call { return Call{} }

// searchQuery is the query of GET /api/search.
func searchQuery(*World, Role) Call {
	return Call{Query: "query=fuga+en+el+ba%C3%B1o+en+Bogot%C3%A1+el+s%C3%A1bado"}
}

func body(v any) func(*World, Role) Call {
	return func(*World, Role) Call { return Call{Body: v} }
}

// Table is the authorisation matrix of every route the service owns, keyed
// by "METHOD /path". A registered route missing here fails the matrix.
var Table = map[string]Expectation{
	// The catch-alls answer 404 "Ruta no encontrada" in the envelope ({path} = "nada/aqui").
	"GET /api/{path...}":    {nowhere, body(nil)},
	"POST /api/{path...}":   {nowhere, body(map[string]any{"a": 1})},
	"PUT /api/{path...}":    {nowhere, body(map[string]any{"a": 1})},
	"PATCH /api/{path...}":  {nowhere, body(map[string]any{"a": 1})},
	"DELETE /api/{path...}": {nowhere, body(nil)},

	"GET /api/docs":              {public, none},
	"GET /api/docs/openapi.json": {public, none},

	"POST /api/auth/register": {public, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"name": "Cliente Nuevo", "email": "nuevo" + Unique() + "@example.com", "password": "secreto-123",
			"confirmPassword": "secreto-123", "acceptTerms": true}}
	}},
	"POST /api/auth/login": {public, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"email": w.Users[Client].Email(), "password": "secreto-123"}}
	}},
	"POST /api/auth/logout": {public, func(w *World, r Role) Call { return Call{FreshSession: true} }},
	"POST /api/auth/password/forgot": {public, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"email": "olvido" + Unique() + "@example.com"}}
	}},
	"POST /api/auth/password/reset": {public, body(map[string]any{"token": "enlace-falso", "password": "nueva-clave-1", "confirmPassword": "nueva-clave-1"})},
	"POST /api/auth/verify":         {public, body(map[string]any{"token": "enlace-falso"})},
	"POST /api/auth/verify/resend":  {signedIn, none},
	"GET /api/me/export":            {signedIn, none},
	// An empty password: the guards let the caller in, the body is refused (400), nobody is erased.
	"DELETE /api/me":              {signedIn, body(map[string]any{"password": ""})},
	"GET /api/me":                 {signedIn, none},
	"PATCH /api/me":               {signedIn, body(map[string]any{"city": "Medellín"})},
	"PATCH /api/me/camello":       {camelloOnly, body(map[string]any{"neighborhood": "Chapinero"})},
	"PUT /api/me/camello/area":    {camelloOnly, body(map[string]any{"lat": 4.65, "lng": -74.06, "radiusKm": 10})},
	"DELETE /api/me/camello/area": {camelloOnly, none},
	"GET /api/places":             {public, func(*World, Role) Call { return Call{Query: "q=chapinero"} }},
	"GET /api/places/{id}":        {public, none},
	"POST /api/register/camello": {public, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"name": "Camello Nuevo", "email": "camello" + Unique() + "@example.com", "phone": "3001234567",
			"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true, "city": "Cali", "trades": []string{"pintura"}}}
	}},

	"GET /api/camellos":              {public, func(*World, Role) Call { return Call{Query: "city=bogota&perPage=5"} }},
	"GET /api/camellos/{id}":         {public, none},
	"GET /api/camellos/{id}/reviews": {public, none},
	"GET /api/camellos/{id}/slots": {signedIn, func(w *World, r Role) Call {
		from := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Hour)
		return Call{Query: "from=" + timefmt.ISO(from) + "&to=" + timefmt.ISO(from.Add(72*time.Hour))}
	}},
	"GET /api/categories":                    {public, none},
	"GET /api/services":                      {public, func(w *World, r Role) Call { return Call{Query: "category=" + w.CategoryID} }},
	"POST /api/search/interpret":             {public, body(map[string]any{"query": "plomero urgente en Bogotá mañana"})},
	"GET /api/search":                        {public, searchQuery},
	"GET /api/legal/{slug}":                  {public, none},
	"POST /api/legal/{slug}/accept":          {signedIn, none},
	"GET /api/notifications/push/public-key": {public, none},

	"GET /api/jobs": {signedIn, none},
	"POST /api/jobs": {clientOnly, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"title": "Instalar lámpara", "description": "En la sala", "serviceId": w.ServiceID, "city": "Bogotá"}}
	}},
	"GET /api/jobs/{id}":                {jobParties, none},
	"POST /api/jobs/{id}/accept":        {jobCamello, none},
	"POST /api/jobs/{id}/start":         {jobCamello, none},
	"POST /api/jobs/{id}/complete":      {jobCamello, none},
	"POST /api/jobs/{id}/cancel":        {jobParties, none},
	"POST /api/jobs/{id}/review":        {jobClient, body(map[string]any{"rating": 5, "comment": "Excelente"})},
	"POST /api/jobs/{id}/client-review": {jobCamello, body(map[string]any{"rating": 5, "comment": "Cliente cumplido"})},
	"GET /api/jobs/{id}/reviews":        {jobParties, none},
	"POST /api/jobs/{id}/appointments": {jobClient, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"start": timefmt.ISO(w.SlotStart)}}
	}},
	"PATCH /api/jobs/{id}":      {jobClient, body(map[string]any{"address": "Calle 10 # 5-20", "description": "Gotea la ducha"})},
	"GET /api/jobs/open":        {camelloOnly, func(*World, Role) Call { return Call{Query: "city=bogota&perPage=5"} }},
	"GET /api/jobs/{id}/quotes": {jobParties, none},
	"POST /api/jobs/{id}/quotes": {camelloOnly, func(w *World, r Role) Call {
		return Call{ID: w.OpenJobID, Body: map[string]any{"amount": 50000, "message": "Puedo hoy", "validDays": 3}}
	}},
	"POST /api/quotes/{id}/accept": {jobClient, none},
	"POST /api/quotes/{id}/reject": {jobClient, none},
	"POST /api/quotes/{id}/accept-and-book": {jobClient, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"start": timefmt.ISO(w.SlotStart.Add(2 * time.Hour))}}
	}},
	"GET /api/me/quotes":                  {camelloOnly, none},
	"GET /api/appointments/{id}/ics":      {apptParties, none},
	"POST /api/quotes/{id}/withdraw":      {jobCamello, none},
	"GET /api/jobs/{id}/messages":         {jobParties, none},
	"POST /api/jobs/{id}/messages":        {jobTalkers, body(map[string]any{"body": "¿A qué hora llega?"})},
	"GET /api/messages/files/{id}/{file}": {fileReaders, none},
	"GET /api/jobs/{id}/blocks":           {jobParties, none},
	"POST /api/jobs/{id}/blocks": {jobTalkers, func(w *World, r Role) Call {
		if r == Camello {
			return Call{Body: map[string]any{"userId": w.Users[Client].Id}}
		}
		return Call{Body: map[string]any{"userId": w.Users[Camello].Id}}
	}},
	"DELETE /api/jobs/{id}/blocks/{userId}": {jobParties, none},
	"GET /api/admin/blocks":                 {adminOnly, none},
	"GET /api/events":                       {signedIn, func(*World, Role) Call { return Call{Query: "once=true"} }},
	"GET /api/agenda/availability":          {camelloOnly, none},
	"PUT /api/agenda/availability": {camelloOnly, body(map[string]any{"timezone": "America/Bogota",
		"weekly": []map[string]any{{"weekday": 1, "start": "08:00", "end": "12:00"}}, "blockedDates": []string{}})},
	"GET /api/agenda/appointments":       {signedIn, none},
	"POST /api/appointments/{id}/cancel": {jobParties, none},
	"POST /api/appointments/{id}/reschedule": {apptParties, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"start": timefmt.ISO(w.SlotStart.Add(time.Hour))}}
	}},
	"GET /api/agenda/calendar":             {signedIn, none},
	"POST /api/agenda/calendar/rotate":     {signedIn, none},
	"GET /api/agenda/calendar/{token}":     {nowhere, none},
	"POST /api/cron/appointment-reminders": {cron, none},

	"GET /api/notifications":             {signedIn, none},
	"POST /api/notifications/{id}/read":  {inboxOwner, none},
	"POST /api/notifications/read-all":   {signedIn, none},
	"GET /api/notifications/preferences": {signedIn, none},
	"PUT /api/notifications/preferences": {signedIn, body(map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"inApp": true, "push": false, "email": false}}})},
	"POST /api/notifications/push/subscribe": {signedIn, func(w *World, r Role) Call {
		return Call{Body: PushSubscription("https://push.example.com/send/" + Unique())}
	}},
	"DELETE /api/notifications/push/subscribe": {signedIn, body(map[string]any{"endpoint": "https://push.example.com/send/ninguno"})},
	"POST /api/notifications/push/sync": {signedIn, func(w *World, r Role) Call {
		return Call{Body: PushSubscription("https://push.example.com/send/" + Unique())}
	}},
	// WhatsApp (issue 26): off in the matrix's world (no WHATSAPP_TOKEN): its opt-in answers 503.
	"GET /api/notifications/whatsapp":          {signedIn, none},
	"PUT /api/notifications/whatsapp":          {[5]Outcome{Unauth, Optional, Optional, Optional, Optional}, body(map[string]any{"phone": "300 123 4567"})},
	"DELETE /api/notifications/whatsapp":       {signedIn, none},
	"POST /api/notifications/whatsapp/confirm": {signedIn, body(map[string]any{"code": "123456"})},
	// Meta's subscription check with a wrong token, and a status delivery without a signature.
	"GET /api/whatsapp/webhook": {[5]Outcome{Forbidden, Forbidden, Forbidden, Forbidden, Forbidden},
		func(*World, Role) Call {
			return Call{Query: "hub.mode=subscribe&hub.verify_token=otro&hub.challenge=1"}
		}},
	"POST /api/whatsapp/webhook": {cron, body(map[string]any{"object": "whatsapp_business_account", "entry": []any{}})},

	"GET /api/admin/users":        {adminOnly, none},
	"PATCH /api/admin/users/{id}": {adminOnly, body(map[string]any{"name": "Cliente Renombrado"})},
	"GET /api/admin/services":     {adminOnly, none},
	"POST /api/admin/services": {adminOnly, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"name": "Servicio " + Unique(), "categoryId": w.CategoryID}}
	}},
	"PATCH /api/admin/services/{id}": {adminOnly, body(map[string]any{"description": "Tuberías y grifos"})},
	"DELETE /api/admin/services/{id}": {adminOnly, func(w *World, r Role) Call {
		rec, _ := TryCreate(w.K.App, "services", map[string]any{"name": "Borrable", "slug": "borrable-" + Unique(), "category": w.CategoryID})
		if rec == nil {
			return Call{}
		}
		return Call{ID: rec.Id}
	}},
	"GET /api/admin/categories": {adminOnly, none},
	"POST /api/admin/categories": {adminOnly, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"name": "Categoría " + Unique()}}
	}},
	"PATCH /api/admin/categories/{id}": {adminOnly, body(map[string]any{"icon": "casa"})},
	"GET /api/admin/places":            {adminOnly, none},
	"POST /api/admin/places": {adminOnly, body(map[string]any{"name": "Barrio Matriz", "kind": "BARRIO", "city": "Bogotá",
		"lat": 4.6, "lng": -74.1, "source": "prueba de la matriz"})},
	"PATCH /api/admin/places/{id}":  {adminOnly, body(map[string]any{"lat": 4.61})},
	"DELETE /api/admin/places/{id}": {adminOnly, none},
	"DELETE /api/admin/categories/{id}": {adminOnly, func(w *World, r Role) Call {
		id := "borrable-" + Unique()
		if _, err := TryCreate(w.K.App, "categories", map[string]any{"id": id, "name": "Borrable " + id, "nameKey": "borrable " + id}); err != nil {
			return Call{}
		}
		return Call{ID: id}
	}},
	"GET /api/admin/camellos":        {adminOnly, func(*World, Role) Call { return Call{Query: "status=PENDIENTE"} }},
	"GET /api/admin/camellos/{id}":   {adminOnly, none},
	"PATCH /api/admin/camellos/{id}": {adminOnly, body(map[string]any{"notes": "Revisado"})},
	"GET /api/admin/jobs":            {adminOnly, none},
	"GET /api/admin/jobs/{id}/candidates": {adminOnly, func(w *World, r Role) Call {
		return Call{ID: w.OpenJobID}
	}},
	"POST /api/admin/jobs/{id}/assign": {adminOnly, func(w *World, r Role) Call {
		return Call{Body: map[string]any{"camelloId": w.OtherCamelloID}}
	}},
	"POST /api/admin/notifications":         {adminOnly, body(map[string]any{"title": "Aviso", "body": "Mantenimiento", "userIds": []string{}})},
	"PUT /api/admin/legal-documents/{slug}": {adminOnly, body(map[string]any{"title": "Política de privacidad", "sections": []map[string]any{{"title": "Datos", "content": "Tratamos tus datos con cuidado."}}})},

	// Payments (issue 23): off in the matrix's world (no MERCADOPAGO_ACCESS_TOKEN).
	"POST /api/jobs/{id}/payment":              {[5]Outcome{Unauth, Optional, Denied, Denied, Denied}, none},
	"GET /api/jobs/{id}/payment":               {jobParties, none},
	"POST /api/jobs/{id}/payment/check":        {[5]Outcome{Unauth, Allowed, Denied, Denied, Allowed}, none},
	"POST /api/payments/{id}/release":          {adminOnly, none},
	"GET /api/me/earnings":                     {camelloOnly, none},
	"POST /api/jobs/{id}/payment/cash":         {[5]Outcome{Unauth, Denied, Allowed, Denied, Denied}, none},
	"POST /api/payments/webhook":               {cron, body(map[string]any{"type": "payment", "data": map[string]any{"id": "123"}})},
	"POST /api/jobs/{id}/payment/confirm":      {jobClient, none},
	"POST /api/jobs/{id}/payment/cash/confirm": {jobClient, none},
	"POST /api/jobs/{id}/payment/dispute":      {jobClient, body(map[string]any{"reason": "El trabajo quedó mal hecho"})},
	"POST /api/jobs/{id}/payment/no-show":      {apptParties, none},
	"GET /api/jobs/{id}/payment/policy":        {jobParties, none},
	"GET /api/me/cancellation-policy":          {camelloOnly, none},
	"PUT /api/me/cancellation-policy":          {camelloOnly, body(map[string]any{"policy": "FLEXIBLE"})},
	"GET /api/me/earnings/monthly":             {camelloOnly, none},
	"GET /api/admin/disputes":                  {adminOnly, none},
	"GET /api/admin/disputes/{id}":             {adminOnly, none},
	"POST /api/admin/disputes/{id}/resolve":    {adminOnly, body(map[string]any{"outcome": "LIBERAR"})},
	"POST /api/admin/payouts/batches":          {adminOnly, none},
	"GET /api/admin/payouts/batches/{id}/csv":  {adminOnly, none},
	"GET /api/admin/payouts":                   {adminOnly, none},
	"POST /api/admin/payouts/{id}/paid":        {adminOnly, none},
	"POST /api/admin/payouts/{id}/failed":      {adminOnly, none},
}

// PushSubscription is a well-formed Web Push subscription body for an
// endpoint (a real P-256 point and a 16-byte auth secret).
func PushSubscription(endpoint string) map[string]any {
	return map[string]any{"endpoint": endpoint, "keys": map[string]any{
		"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
		"auth":   "tBHItJI5svbpez7KI4CCXg",
	}}
}
