// Package privacy is the one table of who may read each sensitive field
// (SECURITY.md, "Private fields"). Every answer that carries one of these
// fields (routes, GET /api/me/export, live events, mail and push, the
// calendar feed) asks Visible with the reader's relation to the data, and
// leaves the field out when it says no; no answer writes its own check. A
// new sensitive field, or a new answer that carries one, adds a row or a
// carrier here; hardening's privacy matrix walks the table.
package privacy

// Field is a sensitive field.
type Field string

// The sensitive fields.
const (
	// JobAddress is a job's street address (jobs.address).
	JobAddress Field = "job.address"
	// Phone is a user's or a camello profile's phone.
	Phone Field = "phone"
	// DocumentID is a camello's identity document (and professional card).
	DocumentID Field = "camello.documentId"
	// Email is a user's e-mail address.
	Email Field = "user.email"
	// CamelloPhoto is the photo of a camello, sensitive while the camello is
	// not public (any state but ACTIVO).
	CamelloPhoto Field = "camello.photo"
	// BasePoint is the exact point a camello works from (camellos.baseLat,
	// baseLng): the public sees its barrio and a rounded distance only.
	BasePoint Field = "camello.basePoint"
	// CamelloDocuments are the photos of a camello's identity document and
	// professional card (camellos.documents).
	CamelloDocuments Field = "camello.documents"
	// FeedURL is a calendar feed's URL (its token is a bearer secret).
	FeedURL Field = "agenda.feedURL"
	// ReviewContent is a review's rating and comment on a job under the
	// double-blind rule (either side's review: docs/api/reviews.md).
	ReviewContent Field = "review.content"
)

// Job states by name (the jobs area owns them; the privacy matrix in
// hardening checks every one of them against the routes).
const (
	jobAssigned   = "ASIGNADO"
	jobInProgress = "EN_PROGRESO"
	jobCompleted  = "COMPLETADO"
)

// Relation is how a reader stands to the data a field belongs to.
type Relation struct {
	Admin bool // the reader is an administrator
	Self  bool // the reader is the person the field describes (account, profile, feed)
	// For a job's fields:
	Client    bool   // the reader is the job's client
	Provider  bool   // the reader's camello is the job's provider (requested or assigned)
	JobStatus string // the job's state
	// For a camello's fields:
	Public bool // the camello is public (ACTIVO)
	// For a review's content (Self: the reader wrote it):
	Sealed bool // the review is not yet published (double blind)
}

// Rule is one row of the table: who sees the field, in words (for
// SECURITY.md and test messages), the answers that carry it, and the rule
// itself.
type Rule struct {
	Who      string
	Carriers []string
	Sees     func(Relation) bool
}

// Table is the one visibility rule per sensitive field.
var Table = map[Field]Rule{
	JobAddress: {
		Who: "the job's client, admins, and the job's camello while the job is ASIGNADO, EN_PROGRESO or COMPLETADO " +
			"(never a camello merely requested, a quoting or rejected one, nor the camello of a cancelled job)",
		Carriers: []string{"GET /api/jobs", "GET /api/jobs/{id}", "PATCH /api/jobs/{id}", "POST /api/jobs/{id}/accept|start|complete|cancel",
			"POST /api/jobs", "GET /api/admin/jobs", "POST /api/admin/jobs/{id}/assign", "POST /api/quotes/{id}/accept",
			"GET /api/me/export (jobs)", "GET /api/agenda/calendar/{token}.ics (LOCATION)"},
		Sees: func(r Relation) bool {
			if r.Admin || r.Client {
				return true
			}
			return r.Provider && (r.JobStatus == jobAssigned || r.JobStatus == jobInProgress || r.JobStatus == jobCompleted)
		},
	},
	Phone: {
		Who: "the person and admins",
		Carriers: []string{"GET/PATCH /api/me", "GET /api/me/export", "PATCH /api/me/camello", "POST /api/register/camello", "GET /api/admin/users", "GET/PATCH /api/admin/camellos/{id}",
			"GET /api/admin/payouts", "POST /api/admin/payouts/batches", "GET /api/admin/payouts/batches/{id}/csv", "POST /api/admin/payouts/{id}/paid|failed"},
		Sees: selfOrAdmin,
	},
	DocumentID: {
		Who: "the camello and admins",
		Carriers: []string{"GET /api/me", "GET /api/me/export", "PATCH /api/me/camello", "POST /api/register/camello", "GET /api/admin/users", "GET/PATCH /api/admin/camellos/{id}",
			"GET /api/admin/payouts", "POST /api/admin/payouts/batches", "GET /api/admin/payouts/batches/{id}/csv", "POST /api/admin/payouts/{id}/paid|failed"},
		Sees: selfOrAdmin,
	},
	Email: {
		Who:      "the person and admins (mail goes only to the person's own address)",
		Carriers: []string{"GET/PATCH /api/me", "GET /api/me/export", "POST /api/auth/login|register|verify|password/reset", "GET /api/admin/users", "mail"},
		Sees:     selfOrAdmin,
	},
	BasePoint: {
		Who: "the camello and admins (the public listing answers the barrio and a rounded distance, never the point)",
		Carriers: []string{"GET /api/me", "GET /api/me/export", "PATCH /api/me/camello", "PUT/DELETE /api/me/camello/area",
			"POST /api/register/camello", "GET/PATCH /api/admin/camellos/{id}"},
		Sees: selfOrAdmin,
	},
	CamelloPhoto: {
		Who:      "anyone while the camello is ACTIVO; otherwise the camello and admins",
		Carriers: []string{"GET /uploads/camellos/{file}"},
		Sees:     func(r Relation) bool { return r.Public || r.Self || r.Admin },
	},
	CamelloDocuments: {
		Who: "the camello and admins (never public, whatever the camello's state)",
		Carriers: []string{"GET /api/files/camellos/{id}/{file}", "GET /api/me", "GET /api/me/export", "PATCH /api/me/camello",
			"POST /api/register/camello", "GET/PATCH /api/admin/camellos/{id}"},
		Sees: selfOrAdmin,
	},
	FeedURL: {
		Who:      "its owner only (not admins: the URL is a bearer secret); the feed dies when the owner is disabled, erased or changes or resets the password",
		Carriers: []string{"GET /api/agenda/calendar", "POST /api/agenda/calendar/rotate"},
		Sees:     func(r Relation) bool { return r.Self },
	},
	ReviewContent: {
		Who: "while sealed, its author and admins only (neither side reads the other's before writing its own); once published, " +
			"both parties of the job and admins (the client's review of the camello is also public in the camello's listing)",
		Carriers: []string{"GET /api/jobs/{id}/reviews", "POST /api/jobs/{id}/review", "POST /api/jobs/{id}/client-review",
			"GET /api/me/export (clientReviewsReceived, clientReviewsWritten, reviewsReceived)"},
		Sees: func(r Relation) bool { return r.Admin || r.Self || (!r.Sealed && (r.Client || r.Provider)) },
	},
}

func selfOrAdmin(r Relation) bool { return r.Self || r.Admin }

// Visible reports whether a reader with relation r may read field f. An
// unknown field is visible to nobody.
func Visible(f Field, r Relation) bool {
	rule, ok := Table[f]
	return ok && rule.Sees(r)
}
