package httpapi_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/text"

	validation "github.com/go-ozzo/ozzo-validation/v4"
)

func TestCheckLengthCountsCharacters(t *testing.T) {
	cases := []struct {
		s        string
		min, max int
		ok       bool
	}{
		{strings.Repeat("ñ", 120), 2, 120, true},
		{strings.Repeat("ñ", 121), 2, 120, false},
		{"a", 2, 120, false},
		{"", 2, 120, false},
		{"", 0, 10, true},
		{"😀😀", 2, 2, true},
	}
	for _, c := range cases {
		v := httpapi.NewValidation()
		if got := httpapi.CheckLength(v, "f", c.s, c.min, c.max); got != c.ok || v.OK() != c.ok {
			t.Errorf("CheckLength(%d chars, %d, %d) = %v", text.Chars(c.s), c.min, c.max, got)
		}
	}
}

func TestDecodeObject(t *testing.T) {
	type in struct {
		Name   string   `json:"name"`
		Flag   *bool    `json:"flag"`
		Count  int      `json:"count"`
		Tags   []string `json:"tags"`
		hidden string
	}
	var dst in
	if err := httpapi.DecodeObject([]byte(`{"name":"a","flag":true,"count":3,"tags":["x"],"extra":1,"hidden":"h"}`), &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Name != "a" || dst.Flag == nil || !*dst.Flag || dst.Count != 3 || len(dst.Tags) != 1 || dst.hidden != "" {
		t.Fatalf("decoded %+v", dst)
	}
	err := httpapi.DecodeObject([]byte(`{"name":1,"flag":"true","count":1.5,"tags":"x"}`), &in{})
	e := httpapi.ToError(err)
	if e.Status != 400 || e.Message != httpapi.MsgInvalidData {
		t.Fatalf("type errors: %v", err)
	}
	for _, f := range []string{"name", "flag", "count", "tags"} {
		if len(e.Issues.FieldErrors[f]) == 0 {
			t.Errorf("no error for %s", f)
		}
	}
	for _, bad := range []string{`[]`, `null`, `"x"`, `{`, ``, `{"a":1}{`} {
		if e := httpapi.ToError(httpapi.DecodeObject([]byte(bad), &in{})); e.Message != httpapi.MsgInvalidJSON {
			t.Errorf("%q: %v", bad, e)
		}
	}
}

// The fields of an embedded struct are read as the object's own.
func TestDecodeObjectEmbedded(t *testing.T) {
	type base struct {
		Name string `json:"name"`
		City string `json:"city"`
	}
	type in struct {
		base
		Trades []string `json:"trades"`
	}
	var dst in
	if err := httpapi.DecodeObject([]byte(`{"name":"Ana","city":"Cali","trades":["x"]}`), &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Name != "Ana" || dst.City != "Cali" || len(dst.Trades) != 1 {
		t.Fatalf("decoded %+v", dst)
	}
	e := httpapi.ToError(httpapi.DecodeObject([]byte(`{"name":5,"trades":"x"}`), &in{}))
	if e.Status != 400 || len(e.Issues.FieldErrors["name"]) == 0 || len(e.Issues.FieldErrors["trades"]) == 0 {
		t.Fatalf("type errors: %+v", e)
	}
}

func TestToError(t *testing.T) {
	cases := []struct {
		err    error
		status int
		msg    string
	}{
		{httpapi.Conflict("x"), 409, "x"},
		{fmt.Errorf("wrapped: %w", httpapi.NotFound("y")), 404, "y"},
		{sql.ErrNoRows, 404, httpapi.MsgNotFound},
		{&http.MaxBytesError{Limit: 1}, 413, httpapi.MsgTooLarge},
		{validation.Errors{"status": httpapi.RuleError("no se puede")}, 400, httpapi.MsgInvalidData},
		{errors.New("disk on fire: /var/lib/secret.db"), 500, httpapi.MsgInternal},
	}
	for _, c := range cases {
		e := httpapi.ToError(c.err)
		if e.Status != c.status || e.Message != c.msg {
			t.Errorf("%v → %d %q", c.err, e.Status, e.Message)
		}
		if e.Status == 500 && (e.Detail != nil || e.Issues != nil) {
			t.Error("internal error leaks detail")
		}
	}
	e := httpapi.ToError(validation.Errors{"status": httpapi.RuleError("no se puede")})
	if got := e.Issues.FieldErrors["status"]; len(got) != 1 || got[0] != "no se puede" || *e.Detail != "status: no se puede" {
		t.Fatalf("rule error rendering: %+v", e.Issues)
	}
}
