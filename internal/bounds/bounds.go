// Package bounds is the one place for the length bounds of the fields, in
// characters (Unicode code points). The schema migration, the input
// validation of the routes and the API documentation (checked by a test of
// modules/docs) all use these values; change a bound here and nowhere else.
// A Min of 0 means optional.
package bounds

// People and accounts (users, camellos).
const (
	NameMin, NameMax                 = 2, 120 // a person's or camello's name
	CityMin, CityMax                 = 2, 120
	NeighborhoodMax                  = 120
	PhoneMin, PhoneMax               = 7, 32
	EmailMax                         = 254
	PasswordMin, PasswordMax         = 8, 128
	DocumentIDMax                    = 32
	ProfessionalCardMax              = 120
	CamelloDescriptionMax            = 5000
	CamelloNotesMax                  = 5000
	TimezoneMax                      = 64
	UserAgentMax                     = 300
	IPMax                            = 64
	CategoryNameMin, CategoryNameMax = 2, 80
	CategoryDescriptionMax           = 500
	CategoryIconMax                  = 50
	ServiceNameMin, ServiceNameMax   = 2, 120
	ServiceSlugMax                   = 140
	ServiceDescriptionMax            = 2000
)

// Jobs and reviews.
const (
	JobTitleMin, JobTitleMax = 3, 120
	JobDescriptionMax        = 5000
	JobAddressMax            = 200
	ReviewCommentMax         = 2000
)

// Money (payments, disputes).
const (
	DisputeReasonMin, DisputeReasonMax = 10, 2000 // the client's account of what went wrong
	ResolutionNoteMax                  = 1000     // the admin's note on a resolved dispute
)

// Notifications and legal texts.
const (
	NotificationTitleMin, NotificationTitleMax = 1, 200
	NotificationBodyMax                        = 2000
	URLMax                                     = 2048
	LegalTitleMin, LegalTitleMax               = 1, 200
	LegalContentMin, LegalContentMax           = 1, 20000
	SearchQueryMin, SearchQueryMax             = 1, 300
)

// An admin's reason for rejecting a camello (mailed to it).
const (
	RejectionReasonMin, RejectionReasonMax = 5, 1000
)

// "Cerca de mí" (issue 26): the gazetteer's places and where a camello
// works from.
const (
	PlaceNameMin, PlaceNameMax = 2, 120 // a city, localidad, comuna or barrio of the gazetteer
	PlaceDepartmentMax         = 120
	PlaceSourceMin             = 3   // where a row comes from (GeoNames, an admin...)
	PlaceSourceMax             = 300 //
	TravelRadiusMinKm          = 1   // how far a camello travels from its base point, whole km
	TravelRadiusMaxKm          = 100
)
