package agenda

// Typed view of the availability collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the availability collection.
const (
	AvailabilityFieldBlockedDates        = "blockedDates"
	AvailabilityFieldBufferMinutes       = "bufferMinutes"
	AvailabilityFieldCamello             = "camello"
	AvailabilityFieldCreated             = "created"
	AvailabilityFieldHorizonDays         = "horizonDays"
	AvailabilityFieldMinNoticeMinutes    = "minNoticeMinutes"
	AvailabilityFieldTimezone            = "timezone"
	AvailabilityFieldTravelBufferMinutes = "travelBufferMinutes"
	AvailabilityFieldUpdated             = "updated"
	AvailabilityFieldWeekly              = "weekly"
	AvailabilityFieldWorksHolidays       = "worksHolidays"
)

// AvailabilityRecord is an availability record (a camello's weekly hours and rules).
type AvailabilityRecord struct {
	core.BaseRecordProxy
}

// WrapAvailabilityRecord returns rec as a AvailabilityRecord.
func WrapAvailabilityRecord(rec *core.Record) *AvailabilityRecord {
	r := &AvailabilityRecord{}
	r.SetProxyRecord(rec)
	return r
}

// BlockedDates decodes the blockedDates field (JSON) into v.
func (r *AvailabilityRecord) BlockedDates(v any) error {
	return r.UnmarshalJSONField(AvailabilityFieldBlockedDates, v)
}

// BufferMinutes is the bufferMinutes field.
func (r *AvailabilityRecord) BufferMinutes() int { return r.GetInt(AvailabilityFieldBufferMinutes) }

// CamelloID is the camello field.
func (r *AvailabilityRecord) CamelloID() string { return r.GetString(AvailabilityFieldCamello) }

// Created is the created field.
func (r *AvailabilityRecord) Created() types.DateTime { return r.GetDateTime(AvailabilityFieldCreated) }

// HorizonDays is the horizonDays field.
func (r *AvailabilityRecord) HorizonDays() int { return r.GetInt(AvailabilityFieldHorizonDays) }

// MinNoticeMinutes is the minNoticeMinutes field.
func (r *AvailabilityRecord) MinNoticeMinutes() int {
	return r.GetInt(AvailabilityFieldMinNoticeMinutes)
}

// Timezone is the timezone field.
func (r *AvailabilityRecord) Timezone() string { return r.GetString(AvailabilityFieldTimezone) }

// TravelBufferMinutes is the travelBufferMinutes field.
func (r *AvailabilityRecord) TravelBufferMinutes() int {
	return r.GetInt(AvailabilityFieldTravelBufferMinutes)
}

// Updated is the updated field.
func (r *AvailabilityRecord) Updated() types.DateTime { return r.GetDateTime(AvailabilityFieldUpdated) }

// Weekly decodes the weekly field (JSON) into v.
func (r *AvailabilityRecord) Weekly(v any) error {
	return r.UnmarshalJSONField(AvailabilityFieldWeekly, v)
}

// WorksHolidays is the worksHolidays field.
func (r *AvailabilityRecord) WorksHolidays() bool { return r.GetBool(AvailabilityFieldWorksHolidays) }
