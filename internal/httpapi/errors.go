// Package httpapi is the HTTP surface every Camellos module shares: the
// error envelope {error, issues, detail} with Spanish messages, JSON input
// binding with field-level validation errors, path ids, paging, the /api
// group with its fallback (404/405 in our envelope) and the security headers.
package httpapi

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"camellos/internal/records"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
)

// Spanish messages shared by several modules.
const (
	MsgInvalidData      = "Datos inválidos"
	MsgInvalidJSON      = "Cuerpo JSON inválido"
	MsgUnauthenticated  = "No autenticado"
	MsgUnauthorized     = "No autorizado"
	MsgNotAdmin         = "Sin permisos de administrador"
	MsgNotFound         = "Recurso no encontrado"
	MsgMethodNotAllowed = "Método no permitido"
	MsgTooLarge         = "El cuerpo de la solicitud es demasiado grande"
	MsgUnsupportedType  = "Tipo de contenido no soportado"
	MsgTooManyRequests  = "Demasiadas solicitudes, inténtalo más tarde"
	MsgInternal         = "Error interno del servidor"
	MsgConflict         = "Conflicto con el estado actual"
)

// Issues is the "issues" object of a validation error: form-level messages
// and per-field messages, in the shape clients of the interface expect.
type Issues struct {
	FormErrors  []string            `json:"formErrors"`
	FieldErrors map[string][]string `json:"fieldErrors"`
	// Conflicts lists what a 409 collided with (ConflictWith), e.g. the
	// starts of a series that are not free.
	Conflicts any `json:"conflicts,omitempty"`

	order []string // fields in the order they failed, for a stable detail
}

// Error is the error value every Camellos route returns; the envelope
// middleware renders it as {error, issues, detail} with Status.
type Error struct {
	Status  int
	Message string
	Issues  *Issues
	Detail  *string
	Cause   error // internal cause, logged and never sent to the client
	// RetryAfter, when positive, is sent as the Retry-After header (seconds).
	RetryAfter int
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Message, e.Cause)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

// Unwrap exposes the internal cause to errors.Is/As.
func (e *Error) Unwrap() error { return e.Cause }

// NewError builds an error with a status and a Spanish message.
func NewError(status int, message string) *Error {
	return &Error{Status: status, Message: message}
}

// WithDetail returns the error with a human readable detail line.
func (e *Error) WithDetail(detail string) *Error {
	e.Detail = &detail
	return e
}

// BadRequest is a 400 with the given message.
func BadRequest(message string) *Error { return NewError(http.StatusBadRequest, message) }

// Unauthorized is a 401 with the given message.
func Unauthorized(message string) *Error { return NewError(http.StatusUnauthorized, message) }

// Forbidden is a 403 with the given message.
func Forbidden(message string) *Error { return NewError(http.StatusForbidden, message) }

// NotFound is a 404 with the given message.
func NotFound(message string) *Error { return NewError(http.StatusNotFound, message) }

// Conflict is a 409 with the given message.
func Conflict(message string) *Error { return NewError(http.StatusConflict, message) }

// ConflictWith is a 409 whose issues.conflicts lists what the request
// collided with.
func ConflictWith(message string, conflicts any) *Error {
	e := Conflict(message)
	e.Issues = &Issues{FormErrors: []string{}, FieldErrors: map[string][]string{}, Conflicts: conflicts}
	return e
}

// BusyRetryAfter is the Retry-After (seconds) of a write refused because
// the database stayed locked by another process.
const BusyRetryAfter = 1

// Busy is the 503 "Servicio ocupado" with Retry-After of a write SQLite
// refused as busy (cause logged, never shown).
func Busy(cause error) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Message: MsgBusy, Cause: cause, RetryAfter: BusyRetryAfter}
}

// Internal is a 500 whose cause is logged but never shown.
func Internal(cause error) *Error {
	return &Error{Status: http.StatusInternalServerError, Message: MsgInternal, Cause: cause}
}

// FieldError is a 400 "Datos inválidos" with a single field message.
func FieldError(field, message string) *Error {
	v := NewValidation()
	v.Add(field, message)
	return v.Err().(*Error)
}

// Validation accumulates field errors and turns them into one 400 error.
type Validation struct {
	issues Issues
}

// NewValidation starts an empty set of issues.
func NewValidation() *Validation {
	return &Validation{issues: Issues{FormErrors: []string{}, FieldErrors: map[string][]string{}}}
}

// Add records a message for a field.
func (v *Validation) Add(field, message string) {
	if _, ok := v.issues.FieldErrors[field]; !ok {
		v.issues.order = append(v.issues.order, field)
	}
	v.issues.FieldErrors[field] = append(v.issues.FieldErrors[field], message)
}

// AddForm records a message that belongs to no single field.
func (v *Validation) AddForm(message string) {
	v.issues.FormErrors = append(v.issues.FormErrors, message)
}

// Has reports whether the field already has an error.
func (v *Validation) Has(field string) bool {
	_, ok := v.issues.FieldErrors[field]
	return ok
}

// OK reports whether nothing failed.
func (v *Validation) OK() bool {
	return len(v.issues.FieldErrors) == 0 && len(v.issues.FormErrors) == 0
}

// Err returns nil when nothing failed, else the 400 "Datos inválidos" error.
func (v *Validation) Err() error {
	if v.OK() {
		return nil
	}
	issues := v.issues
	parts := make([]string, 0, len(issues.order)+len(issues.FormErrors))
	parts = append(parts, issues.FormErrors...)
	for _, f := range issues.order {
		parts = append(parts, f+": "+strings.Join(issues.FieldErrors[f], ", "))
	}
	detail := strings.Join(parts, "; ")
	return &Error{Status: http.StatusBadRequest, Message: MsgInvalidData, Issues: &issues, Detail: &detail}
}

// envelopeBody is the JSON body of every error answered by our routes.
type envelopeBody struct {
	Error  string  `json:"error"`
	Issues *Issues `json:"issues"`
	Detail *string `json:"detail"`
}

// Envelope is the route-group middleware that renders every error (and
// panic) of our routes as {error, issues, detail}. Internal causes are
// logged, never leaked.
func Envelope() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosEnvelope",
		// Before PocketBase's body limit, so its 413 is rendered by us too.
		Priority: apis.DefaultBodyLimitMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					err = WriteError(e, Internal(fmt.Errorf("panic: %v", r)))
				}
			}()
			if err = e.Next(); err != nil {
				return WriteError(e, err)
			}
			return nil
		},
	}
}

// WriteError renders err in the envelope, unless a response was written.
func WriteError(e *core.RequestEvent, err error) error {
	apiErr := ToError(err)
	if apiErr.Status >= 500 {
		e.App.Logger().Error("request failed",
			"method", e.Request.Method, "url", e.Request.URL.Path, "error", err.Error())
	}
	if e.Written() {
		return nil
	}
	if apiErr.RetryAfter > 0 {
		e.Response.Header().Set("Retry-After", strconv.Itoa(apiErr.RetryAfter))
	}
	return e.JSON(apiErr.Status, envelopeBody{Error: apiErr.Message, Issues: apiErr.Issues, Detail: apiErr.Detail})
}

// ToError maps any error to our envelope error. SQLite refusing a write
// because another process holds the database (busy, after the writer's
// retries) is a 503 with Retry-After, never a 500.
func ToError(err error) *Error {
	var ours *Error
	if errors.As(err, &ours) {
		if ours.Status >= 500 && records.IsBusy(ours.Cause) {
			return Busy(err)
		}
		return ours
	}
	if records.IsBusy(err) {
		return Busy(err)
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge, Cause: err}
	}
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		return FromValidationErrors(verrs)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &Error{Status: http.StatusNotFound, Message: MsgNotFound, Cause: err}
	}
	var pbErr *router.ApiError
	if errors.As(err, &pbErr) {
		if raw, ok := pbErr.RawData().(error); ok {
			if errors.As(raw, &tooLarge) {
				return &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge, Cause: err}
			}
			if errors.As(raw, &verrs) {
				return FromValidationErrors(verrs)
			}
		}
		return &Error{Status: pbErr.Status, Message: messageForStatus(pbErr.Status), Cause: err}
	}
	return Internal(err)
}

func messageForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return MsgInvalidData
	case http.StatusUnauthorized:
		return MsgUnauthenticated
	case http.StatusForbidden:
		return MsgUnauthorized
	case http.StatusNotFound:
		return MsgNotFound
	case http.StatusMethodNotAllowed:
		return MsgMethodNotAllowed
	case http.StatusConflict:
		return MsgConflict
	case http.StatusRequestEntityTooLarge:
		return MsgTooLarge
	case http.StatusUnsupportedMediaType:
		return MsgUnsupportedType
	case http.StatusTooManyRequests:
		return MsgTooManyRequests
	}
	if status >= 500 {
		return MsgInternal
	}
	return http.StatusText(status)
}

// FromValidationErrors turns ozzo validation errors (ours from record hooks,
// or PocketBase's field validators) into a 400 with Spanish field messages.
func FromValidationErrors(verrs validation.Errors) *Error {
	v := NewValidation()
	for _, k := range sortedKeys(verrs) {
		flattenValidation(v, k, verrs[k])
	}
	if v.OK() {
		v.AddForm("Datos inválidos")
	}
	return v.Err().(*Error)
}

// sortedKeys returns the fields of validation errors in order, for a
// stable detail.
func sortedKeys(verrs validation.Errors) []string {
	keys := make([]string, 0, len(verrs))
	for k := range verrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func flattenValidation(v *Validation, field string, err error) {
	var nested validation.Errors
	if errors.As(err, &nested) {
		for _, k := range sortedKeys(nested) {
			flattenValidation(v, field, nested[k])
		}
		return
	}
	var verr validation.Error
	if errors.As(err, &verr) {
		v.Add(field, SpanishValidationMessage(verr))
		return
	}
	v.Add(field, "Valor inválido")
}

// SpanishValidationMessage translates a validation error by its code; our own
// hooks already use Spanish messages with codes prefixed "camellos_".
func SpanishValidationMessage(verr validation.Error) string {
	code := verr.Code()
	if strings.HasPrefix(code, "camellos_") {
		return verr.Message()
	}
	switch code {
	case "validation_required", "validation_nil_or_not_empty_required":
		return "Es obligatorio"
	case "validation_length_out_of_range", "validation_length_too_long", "validation_length_too_short",
		"validation_min_text_constraint", "validation_max_text_constraint", "validation_length_invalid":
		return "Longitud fuera de rango"
	case "validation_is_email", "validation_invalid_email":
		return "Correo electrónico inválido"
	case "validation_not_unique", "validation_invalid_email_unique":
		return "Ya existe un registro con este valor"
	case "validation_invalid_mime_type":
		return "Tipo de archivo no permitido"
	case "validation_invalid_file_size":
		return "El archivo es demasiado grande"
	case "validation_min_greater_equal_than_required", "validation_max_less_equal_than_required",
		"validation_min_number_constraint", "validation_max_number_constraint":
		return "Valor fuera de rango"
	case "validation_in_invalid", "validation_invalid_value":
		return "Valor no permitido"
	case "validation_missing_rel_records":
		return "Registro relacionado inexistente"
	}
	return "Valor inválido"
}

// RuleError is a validation error carrying a Spanish message, for record
// hooks: PocketBase renders it per field and our envelope keeps the message.
func RuleError(message string) validation.Error {
	return validation.NewError("camellos_rule", message)
}

// FieldRuleError is a record-hook error for one field with a Spanish message.
func FieldRuleError(field, message string) error {
	return validation.Errors{field: RuleError(message)}
}
