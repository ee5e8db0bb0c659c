package agenda

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"camellos/internal/bus"
	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/jobs"
	"camellos/modules/users"

	ics "github.com/arran4/golang-ical"
	"github.com/pocketbase/pocketbase/core"
)

// Calendar feed settings.
const (
	// CalendarFeedsCollection holds one feed per user: the SHA-256 of its
	// token (to find it) and the nonce the token is derived from; never
	// the token.
	CalendarFeedsCollection = "calendar_feeds"

	// FeedPast and FeedAhead bound the appointments a feed lists.
	FeedPast  = 30 * 24 * time.Hour
	FeedAhead = 365 * 24 * time.Hour
	// FeedMaxEvents caps one feed.
	FeedMaxEvents = 5000

	MsgFeedNotFound = "Calendario no encontrado"

	feedKeyFile      = "calendar_feed.key"
	storeKeyFeedKey  = "camellos.agenda.feedKey"
	calendarFeedPath = "/api/agenda/calendar/"
)

// feedKey is the app's secret feed key: 32 random bytes kept in the data
// directory (outside the database), made on first use. A feed token is
// HMAC-SHA256(key, user id ":" nonce), so a copy of the database alone
// cannot rebuild a feed URL.
type feedKey struct {
	once sync.Once
	key  []byte
	err  error
}

func feedKeyOf(app core.App) ([]byte, error) {
	fk := app.Store().GetOrSet(storeKeyFeedKey, func() any { return &feedKey{} }).(*feedKey)
	fk.once.Do(func() {
		path := filepath.Join(app.DataDir(), feedKeyFile)
		if raw, err := os.ReadFile(path); err == nil {
			fk.key, fk.err = hex.DecodeString(strings.TrimSpace(string(raw)))
			if fk.err == nil && len(fk.key) < 32 {
				fk.err = errors.New("calendar feed key too short")
			}
			return
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			fk.err = err
			return
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if raw, rerr := os.ReadFile(path); rerr == nil { // made meanwhile
				fk.key, fk.err = hex.DecodeString(strings.TrimSpace(string(raw)))
				return
			}
			fk.err = err
			return
		}
		defer f.Close()
		if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
			fk.err = err
			return
		}
		fk.key = key
	})
	return fk.key, fk.err
}

// feedToken derives a feed's token from its user and nonce.
func feedToken(key []byte, userID, nonce string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(userID + ":" + nonce))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// tokenHash is what is stored to find a feed by its token.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// feedCredential is what a feed keeps of its owner's credentials: the
// SHA-256 of the user's token key, which PocketBase renews with every
// password change or reset. A feed whose credential no longer matches, or
// whose owner is disabled (erasure disables too), answers 404: the feed
// dies with those events, whatever path (route, CLI, dashboard) caused them.
// Migration 1764120000 derives the same value for older feeds.
func feedCredential(user *core.Record) string {
	sum := sha256.Sum256([]byte("calendar-feed:" + user.TokenKey()))
	return hex.EncodeToString(sum[:])
}

// feedOwner returns the feed's owner while the feed is alive, or nil.
func feedOwner(app core.App, feed *core.Record) *core.Record {
	user, err := app.FindRecordById(users.Collection, feed.GetString("user"))
	if err != nil || users.Wrap(user).Disabled() {
		return nil
	}
	if !hmac.Equal([]byte(feed.GetString("credential")), []byte(feedCredential(user))) {
		return nil
	}
	return user
}

// bindFeedLifecycle deletes a disabled user's feed once the change has
// committed, so that re-enabling the account does not revive the old URL
// (feedOwner refuses it meanwhile, whatever path disabled the user).
func bindFeedLifecycle(app core.App) {
	bus.Of(app).UserChanged.BindFunc(func(e *bus.Change) error {
		if users.Wrap(e.Record).Disabled() {
			if feed, err := e.App.FindFirstRecordByData(CalendarFeedsCollection, "user", e.Record.Id); err == nil {
				if err := e.App.Delete(feed); err != nil {
					e.App.Logger().Warn("calendar feed of a disabled user not deleted", "user", e.Record.Id, "error", err)
				}
			}
		}
		return e.Next()
	})
}

// feedURL is the absolute URL of a token's feed: APP_URL/api/agenda/calendar/<token>.ics.
func feedURL(app core.App, token string) string {
	return config.Of(app).AppURL + calendarFeedPath + token + ".ics"
}

// saveFeed gives the user's feed a new nonce (creating the feed when
// rotate or when it has none) and returns its token; an existing feed is
// kept as it is unless rotate.
func saveFeed(app core.App, user *core.Record, rotate bool) (string, error) {
	key, err := feedKeyOf(app)
	if err != nil {
		return "", err
	}
	userID, credential := user.Id, feedCredential(user)
	var token string
	err = writer.Transaction(app, func(txApp core.App) error {
		rec, err := txApp.FindFirstRecordByData(CalendarFeedsCollection, "user", userID)
		if err == nil && !rotate {
			token = feedToken(key, userID, rec.GetString("nonce"))
			if tokenHash(token) == rec.GetString("tokenHash") && rec.GetString("credential") == credential {
				return nil
			}
			// the key changed (a lost calendar_feed.key), or the password
			// did since the feed was issued: issue a new token
		}
		if rec == nil {
			col, err := txApp.FindCachedCollectionByNameOrId(CalendarFeedsCollection)
			if err != nil {
				return err
			}
			rec = core.NewRecord(col)
			rec.Set("user", userID)
		}
		raw := make([]byte, 16)
		if _, err := rand.Read(raw); err != nil {
			return err
		}
		nonce := hex.EncodeToString(raw)
		token = feedToken(key, userID, nonce)
		rec.Set("nonce", nonce)
		rec.Set("tokenHash", tokenHash(token))
		rec.Set("credential", credential)
		return txApp.Save(rec)
	})
	return token, err
}

// calendarGet handles GET /api/agenda/calendar: the signed-in user's feed
// URL {url}, made on the first call.
func calendarGet(e *core.RequestEvent) error {
	token, err := saveFeed(e.App, session.AuthUser(e), false)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"url": feedURL(e.App, token)})
}

// calendarRotate handles POST /api/agenda/calendar/rotate: a new feed URL
// {url}; the old one answers 404 at once.
func calendarRotate(e *core.RequestEvent) error {
	token, err := saveFeed(e.App, session.AuthUser(e), true)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"url": feedURL(e.App, token)})
}

// calendarFeed handles GET /api/agenda/calendar/{token}.ics (public: the
// token is the secret): the feed owner's appointments from 30 days back to
// 365 ahead as an RFC 5545 calendar; an unknown or rotated token, or the
// feed of a user disabled, erased or whose password changed since, is 404.
func calendarFeed(e *core.RequestEvent) error {
	token, ok := strings.CutSuffix(e.Request.PathValue("token"), ".ics")
	if !ok || token == "" || len(token) > 100 {
		return httpapi.NotFound(MsgFeedNotFound)
	}
	feed, err := e.App.FindFirstRecordByData(CalendarFeedsCollection, "tokenHash", tokenHash(token))
	if err != nil {
		return httpapi.NotFound(MsgFeedNotFound)
	}
	owner := feedOwner(e.App, feed)
	if owner == nil {
		return httpapi.NotFound(MsgFeedNotFound)
	}
	body, err := renderFeed(e.App, owner, clock.Now(e.App))
	if err != nil {
		return httpapi.Internal(err)
	}
	e.Response.Header().Set("Cache-Control", "private, no-cache")
	return e.Blob(http.StatusOK, "text/calendar; charset=utf-8", []byte(body))
}

// renderFeed renders a user's calendar at now: one VEVENT per appointment
// (as client or as camello) starting from now−30 days to now+365 days, UID
// "<id>@camellos", UTC times, SUMMARY the job's title, LOCATION its
// neighbourhood and city (preceded by the job's address where
// privacy.JobAddress lets the user see it: its camello while the job is
// assigned, under way or done), STATUS CANCELLED or CONFIRMED. Text values
// go through icsText: CR, LF and CRLF become one escaped line break.
func renderFeed(app core.App, user *core.Record, now time.Time) (string, error) {
	userID := user.Id
	camelloID := ""
	if c := jobs.CamelloOfUser(app, userID); c != nil {
		camelloID = c.Id
	}
	list, _, err := appointments.ListOfParty(app, appointments.Party{ClientID: userID, CamelloID: camelloID},
		now.Add(-FeedPast), now.Add(FeedAhead), 0, FeedMaxEvents)
	if err != nil {
		return "", err
	}
	ids := make([]string, 0, len(list))
	for _, a := range list {
		ids = append(ids, a.JobID())
	}
	sums, err := jobs.SummariesOf(app, ids)
	if err != nil {
		return "", err
	}
	cal := newCalendar()
	for _, a := range list {
		addEvent(app, cal, user, camelloID, a, sums[a.JobID()])
	}
	return cal.Serialize(ics.WithNewLineWindows), nil
}

// newCalendar is an empty calendar of the service (the feed's and one
// visit's .ics).
func newCalendar() *ics.Calendar {
	cal := ics.NewCalendarFor("Camellos")
	cal.SetProductId("-//Camellos//Agenda//ES")
	cal.SetMethod(ics.MethodPublish)
	cal.SetName("Camellos")
	cal.SetXWRCalName("Camellos")
	cal.SetRefreshInterval("PT1H")
	cal.SetXPublishedTTL("PT1H")
	return cal
}

// addEvent adds the appointment a (of the job summarised by job) to cal as
// user reads it (camelloID: user's camello, "" for none); see renderFeed.
func addEvent(app core.App, cal *ics.Calendar, user *core.Record, camelloID string, a *appointments.Appointment, job jobs.Summary) {
	ev := cal.AddEvent(a.Id + "@camellos")
	ev.SetDtStampTime(a.Updated().Time())
	ev.SetModifiedAt(a.Updated().Time())
	ev.SetCreatedTime(a.Created().Time())
	ev.SetStartAt(a.Start())
	ev.SetEndAt(a.End())
	summary := job.Title
	if summary == "" {
		summary = "Cita"
	}
	ev.SetSummary(icsText(summary))
	parts := []string{}
	// The camello's copy of the appointment carries the address when
	// the rule lets it; the client's does not (it wrote the address).
	if a.CamelloID() == camelloID && camelloID != "" {
		if addr := job.AddressFor(user, camelloID); addr != "" {
			parts = append(parts, addr)
		}
	}
	for _, p := range []string{job.Neighborhood, job.City} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > 0 {
		ev.SetLocation(icsText(strings.Join(parts, ", ")))
	}
	ev.SetURL(config.Of(app).AppURL + jobs.JobURL(a.JobID()))
	if a.Status() == appointments.Cancelled {
		ev.SetStatus(ics.ObjectStatusCancelled)
	} else {
		ev.SetStatus(ics.ObjectStatusConfirmed)
	}
}

// appointmentICS handles GET /api/appointments/{id}/ics: one appointment
// as an RFC 5545 calendar ("Añadir al calendario"), for its client or its
// camello (others 403 "No autorizado", unknown 404), written like the
// feed's events (same UID, so a calendar that also reads the feed keeps
// one event), as an attachment named cita-<id>.ics.
func appointmentICS(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	appt, err := appointments.Find(e.App, id)
	if err != nil {
		return httpapi.NotFound(MsgAppointmentNotFound)
	}
	user := session.AuthUser(e)
	camelloID := ""
	if c := jobs.CamelloOfUser(e.App, user.Id); c != nil {
		camelloID = c.Id
	}
	if appt.ClientID() != user.Id && (camelloID == "" || appt.CamelloID() != camelloID) {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	sums, err := jobs.SummariesOf(e.App, []string{appt.JobID()})
	if err != nil {
		return httpapi.Internal(err)
	}
	cal := newCalendar()
	addEvent(e.App, cal, user, camelloID, appt, sums[appt.JobID()])
	e.Response.Header().Set("Cache-Control", "private, no-cache")
	e.Response.Header().Set("Content-Disposition", `attachment; filename="cita-`+appt.Id+`.ics"`)
	return e.Blob(http.StatusOK, "text/calendar; charset=utf-8", []byte(cal.Serialize(ics.WithNewLineWindows)))
}

// icsText prepares a TEXT value for the calendar (RFC 5545 3.3.11): CRLF,
// a bare CR and a bare LF each become one line break (which the encoder
// escapes as "\n"), and any other control character but HTAB, which a
// TEXT value may not hold, becomes a space. Folding of long lines is the
// encoder's.
func icsText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
