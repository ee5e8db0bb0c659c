package httpapi

import (
	"strconv"
	"strings"

	"github.com/pocketbase/pocketbase/core"
)

// Page limits of every paginated list.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
)

// Page is the page a list request asks for.
type Page struct {
	Page    int
	PerPage int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int64 { return int64(p.Page-1) * int64(p.PerPage) }

// Answer builds the list body {<items>: items, page, perPage, total}.
func (p Page) Answer(itemsKey string, items any, total int64) map[string]any {
	return map[string]any{itemsKey: items, "page": p.Page, "perPage": p.PerPage, "total": total}
}

// MaxPage bounds the page number (a larger one is refused, not scanned).
const MaxPage = 1_000_000

// Paging reads the query parameters page (≥ 1, default 1) and perPage
// (1–100, default 20); anything else is a 400 naming the parameter.
func Paging(e *core.RequestEvent) (Page, error) {
	v := NewValidation()
	p := ReadPage(e, v)
	return p, v.Err()
}

// ReadPage is Paging for a list with more query parameters: a bad page or
// perPage is added to v, so one 400 names every bad parameter. Every list
// of the service reads its page with Paging or ReadPage.
func ReadPage(e *core.RequestEvent, v *Validation) Page {
	q := e.Request.URL.Query()
	p := Page{Page: 1, PerPage: DefaultPerPage}
	if s := strings.TrimSpace(q.Get("page")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxPage {
			v.Add("page", "Debe ser un número entero mayor o igual a 1")
		} else {
			p.Page = n
		}
	}
	if s := strings.TrimSpace(q.Get("perPage")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxPerPage {
			v.Add("perPage", "Debe ser un número entero entre 1 y 100")
		} else {
			p.PerPage = n
		}
	}
	return p
}

// LikePattern escapes s for a LIKE … ESCAPE '\' pattern that finds s anywhere.
func LikePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}
