package testkit

import "github.com/pocketbase/dbx"

func dbxFilter(filter string, params map[string]any) []dbx.Expression {
	if filter == "" {
		return nil
	}
	return []dbx.Expression{dbx.NewExp(filter, dbx.Params(params))}
}
