package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/pocketbase/pocketbase/core"
)

// IsJSON reports whether the request declares a JSON body.
func IsJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// IsMultipart reports whether the request declares a multipart form body.
func IsMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// ReadJSON binds a JSON object body into dst (a pointer to a struct whose
// fields carry json tags). A non-JSON content type is 415; a body that is
// not a JSON object is 400 "Cuerpo JSON inválido"; a field of the wrong type
// is 400 "Datos inválidos" naming every such field. Unknown fields are
// ignored; null means absent. An empty body reads as {}.
func ReadJSON(e *core.RequestEvent, dst any) error {
	if e.Request.ContentLength != 0 && !IsJSON(e.Request) {
		return NewError(http.StatusUnsupportedMediaType, MsgUnsupportedType)
	}
	raw, err := io.ReadAll(e.Request.Body)
	if err != nil {
		if apiErr := ToError(err); apiErr.Status == http.StatusRequestEntityTooLarge {
			return apiErr
		}
		return BadRequest(MsgInvalidJSON)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	return DecodeObject(raw, dst)
}

// DecodeObject decodes a JSON object into dst field by field, collecting a
// "Tipo inválido" error for every field whose value has the wrong type.
// The fields of an embedded struct without json tag are the object's own,
// as with encoding/json.
func DecodeObject(raw []byte, dst any) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return BadRequest(MsgInvalidJSON)
	}
	v := NewValidation()
	decodeFields(fields, reflect.ValueOf(dst).Elem(), v)
	return v.Err()
}

func decodeFields(fields map[string]json.RawMessage, rv reflect.Value, v *Validation) {
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			decodeFields(fields, rv.Field(i), v)
			continue
		}
		name := strings.Split(sf.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		value, ok := fields[name]
		if !ok || string(value) == "null" {
			continue
		}
		if err := json.Unmarshal(value, rv.Field(i).Addr().Interface()); err != nil {
			v.Add(name, typeMessage(sf.Type))
			continue
		}
		// Text anywhere in the value (lists and objects too) is checked.
		if !secretField(name) && len(value) > 0 && strings.IndexByte(`"[{`, value[0]) >= 0 {
			var generic any
			if json.Unmarshal(value, &generic) == nil && invisibleIn(generic) {
				v.Add(name, MsgInvisibleChars)
			}
		}
	}
}

func typeMessage(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "Debe ser un texto"
	case reflect.Bool:
		return "Debe ser verdadero o falso"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "Debe ser un número entero"
	case reflect.Float64, reflect.Float32:
		return "Debe ser un número"
	case reflect.Slice:
		return "Debe ser una lista"
	case reflect.Map, reflect.Struct:
		return "Debe ser un objeto"
	}
	return "Tipo inválido"
}
