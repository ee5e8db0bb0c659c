package users

// ByEmailQuery is FindByEmail's query (its plan is checked).
var ByEmailQuery = byEmail
