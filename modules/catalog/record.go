package catalog

import "github.com/pocketbase/pocketbase/core"

// CategoryRecord is a typed categories record.
type CategoryRecord struct {
	core.BaseRecordProxy
}

// WrapCategory returns rec as a CategoryRecord.
func WrapCategory(rec *core.Record) *CategoryRecord {
	c := &CategoryRecord{}
	c.SetProxyRecord(rec)
	return c
}

// Name is the category's name.
func (c *CategoryRecord) Name() string { return c.GetString("name") }

// SortOrder orders the categories in lists.
func (c *CategoryRecord) SortOrder() int { return c.GetInt("sortOrder") }

// ServiceRecord is a typed services record.
type ServiceRecord struct {
	core.BaseRecordProxy
}

// WrapService returns rec as a ServiceRecord.
func WrapService(rec *core.Record) *ServiceRecord {
	s := &ServiceRecord{}
	s.SetProxyRecord(rec)
	return s
}

// FindService loads a service by id with app.
func FindService(app core.App, id string) (*ServiceRecord, error) {
	rec, err := app.FindRecordById(Services, id)
	if err != nil {
		return nil, err
	}
	return WrapService(rec), nil
}

// Name is the service's name.
func (s *ServiceRecord) Name() string { return s.GetString("name") }

// Slug is the service's unique slug.
func (s *ServiceRecord) Slug() string { return s.GetString("slug") }

// CategoryID is the service's category.
func (s *ServiceRecord) CategoryID() string { return s.GetString("category") }
